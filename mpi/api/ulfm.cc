// ULFM, MPICH's fault-tolerance extension: what survivors of a failed rank
// (lapirun --continue-on-failure) use to carry on.
//
//   MPIX_Comm_revoke        fails everything in flight and to come on a
//                           communicator, at every member (mpcpi's revoke)
//   MPIX_Comm_failure_ack   acknowledges the failed members known here;
//   MPIX_Comm_failure_get_acked   ... and returns them as a group
//   MPIX_Comm_agree         AND of an int over the live members, even on a
//                           revoked communicator and while members fail
//   MPIX_Comm_shrink        a new communicator of the members not failed
//
// Agree and shrink run one agreement protocol on the communicator's
// fault_tolerance context, which revocation leaves working. Failures are
// told to every task by the launcher, so a rank waiting for a dead one
// always learns of it (a perfect failure detector), and consensus needs no
// more than this (Chandra and Toueg's rotating coordinator):
//   1. every member sends its vote to every other one not known failed and
//      merges the votes it gets (AND of flags, OR of failed members, AND of
//      free context slots); a member found failed meanwhile joins the set;
//   2. for c = 0 .. n-1, member c sends its estimate to the others, which
//      adopt it, or keep theirs if c failed first.
// The first round whose coordinator does not fail leaves every live member
// with the same estimate; later ones change nothing. Some member outlives
// the call, so there is such a round. Cost: n² small messages, n rounds.
// Inter-communicators are refused (MPI_ERR_COMM).
//
// Their PMPIX_ names come from mpi/pmpi.py.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// A vote and an estimate: [flag][failed members, a bit each][free slots].
struct Vote {
  explicit Vote(int members)
      : failed_words((members + 63) / 64), words(1 + failed_words + ContextSlots::kWords, 0) {
    words[0] = ~std::uint64_t{0};
    for (int w = 0; w < ContextSlots::kWords; ++w) words[1 + failed_words + w] = ~std::uint64_t{0};
  }
  std::size_t failed_words;
  std::vector<std::uint64_t> words;

  std::uint64_t* failed() { return words.data() + 1; }
  std::uint64_t* slots() { return words.data() + 1 + failed_words; }
  bool has_failed(int r) const { return (words[1 + r / 64] >> (r % 64)) & 1; }
  void set_failed(int r) { failed()[r / 64] |= std::uint64_t{1} << (r % 64); }
  void merge(const std::vector<std::uint64_t>& other) {
    words[0] &= other[0];
    for (std::size_t w = 0; w < failed_words; ++w) failed()[w] |= other[1 + w];
    for (int w = 0; w < ContextSlots::kWords; ++w) slots()[w] &= other[1 + failed_words + w];
  }
  std::size_t bytes() const { return words.size() * sizeof(std::uint64_t); }
};

bool member_failed(const Comm& c, int r) {
  return lapi_context().peer_failed(static_cast<lapi::TaskId>(c.world_of(r)));
}

// Sends `v` to every member not known gone (failures of the sends are ignored: a
// dead member needs nothing).
int send_to_all(const Comm& c, const Vote& v, int tag, const std::vector<bool>& gone) {
  mpcpi::Engine& e = engine();
  const std::uint32_t context = c.context(ContextKind::fault_tolerance);
  std::vector<mpcpi::Request*> sent;
  for (int q = 0; q < c.size(); ++q) {
    if (q == c.rank || gone[q]) continue;
    mpcpi::Request* r = nullptr;
    const mpcpi::Errc rc = e.isend(v.words.data(), v.bytes(), c.world_of(q), tag, context,
                                   mpcpi::SendMode::standard, r);
    if (rc != mpcpi::Errc::success && rc != mpcpi::Errc::peer_failed) return engine_error(rc);
    if (r != nullptr) sent.push_back(r);
  }
  int result = MPI_SUCCESS;
  for (mpcpi::Request* r : sent) {
    const mpcpi::Errc rc = e.wait(r, nullptr);
    if (rc != mpcpi::Errc::success && rc != mpcpi::Errc::peer_failed && result == MPI_SUCCESS)
      result = engine_error(rc);
  }
  return result;
}

// Member q's vote or estimate into `into`; false (and q gone) if q failed.
int receive_from(const Comm& c, int q, int tag, std::vector<std::uint64_t>& into, bool& got) {
  mpcpi::Status status;
  const mpcpi::Errc rc = engine().recv(into.data(), into.size() * sizeof(std::uint64_t), c.world_of(q), tag,
                                       c.context(ContextKind::fault_tolerance), &status);
  got = rc == mpcpi::Errc::success;
  if (rc == mpcpi::Errc::peer_failed) return MPI_SUCCESS;
  if (rc != mpcpi::Errc::success) return engine_error(rc);
  if (status.bytes != into.size() * sizeof(std::uint64_t))
    return fail(MPI_ERR_INTERN, "agreement: member {} sent {} bytes, not {}", q, status.bytes,
                into.size() * sizeof(std::uint64_t));
  return MPI_SUCCESS;
}

// The agreement (see the top of the file): `v` in is this member's vote,
// out the decision, the same at every live member.
int agree_on(Comm& c, Vote& v) {
  const std::uint32_t seq = c.agree_seq++ % (1u << 28);
  const int tag_votes = static_cast<int>(seq * 2), tag_decide = tag_votes + 1;
  const int n = c.size();
  std::vector<bool> gone(n, false);
  for (int q = 0; q < n; ++q) {
    gone[q] = q != c.rank && member_failed(c, q);
    if (gone[q]) v.set_failed(q);
  }
  if (int rc = send_to_all(c, v, tag_votes, gone)) return rc;
  std::vector<std::uint64_t> in(v.words.size());
  for (int q = 0; q < n; ++q) {
    if (q == c.rank || gone[q]) continue;
    bool got = false;
    if (int rc = receive_from(c, q, tag_votes, in, got)) return rc;
    if (got) {
      v.merge(in);
    } else {
      gone[q] = true;
      v.set_failed(q);
    }
  }
  for (int coordinator = 0; coordinator < n; ++coordinator) {
    if (coordinator == c.rank) {
      if (int rc = send_to_all(c, v, tag_decide, gone)) return rc;
    } else if (!gone[coordinator]) {
      bool got = false;
      if (int rc = receive_from(c, coordinator, tag_decide, in, got)) return rc;
      if (got) {
        v.words = in;  // adopt, never merge: that is what makes the estimates equal
      } else {
        gone[coordinator] = true;
      }
    }
  }
  return MPI_SUCCESS;
}

int lookup_intra(const char* fn, MPI_Comm comm, Comm*& c) {
  if (int rc = check_running(fn)) return rc;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter())
    rc = fail(MPI_ERR_COMM, "comm is an inter-communicator (not supported by {})", fn);
  return rc;
}

}  // namespace

extern "C" int MPIX_Comm_revoke(MPI_Comm comm) {
  const ApiCall call("MPIX_Comm_revoke");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPIX_Comm_revoke";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, kFn, rc);
  std::vector<std::uint32_t> contexts;
  for (std::uint32_t k = 0; k < kRevocableContexts; ++k) contexts.push_back(c->context(static_cast<ContextKind>(k)));
  if (!c->coll_bound) bind_collective_context(*c);  // the members revoke tells
  engine().revoke(contexts, c->context(ContextKind::collective));
  return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_failure_ack(MPI_Comm comm) {
  const ApiCall call("MPIX_Comm_failure_ack");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPIX_Comm_failure_ack";
  Comm* c = nullptr;
  if (int rc = lookup_intra(kFn, comm, c)) return raise(c, kFn, rc);
  c->acked_failed.clear();
  for (int r = 0; r < c->size(); ++r) {
    if (r != c->rank && member_failed(*c, r)) c->acked_failed.push_back(r);
  }
  // Receives from any source work again (the ones stopped wait once more).
  watch_any_source(*c);
  revive_any_source(*c);
  return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failedgrp) {
  const ApiCall call("MPIX_Comm_failure_get_acked");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPIX_Comm_failure_get_acked";
  Comm* c = nullptr;
  int rc = lookup_intra(kFn, comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(failedgrp, "failedgrp");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::vector<int> world;
  for (int r : c->acked_failed) world.push_back(c->world_of(r));
  if (int rc2 = store_group(std::make_shared<const Group>(std::move(world)), failedgrp)) return raise(c, kFn, rc2);
  return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_agree(MPI_Comm comm, int* flag) {
  const ApiCall call("MPIX_Comm_agree");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPIX_Comm_agree";
  Comm* c = nullptr;
  int rc = lookup_intra(kFn, comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  Vote v(c->size());
  v.words[0] = static_cast<unsigned>(*flag);
  if (int rc2 = agree_on(*c, v)) return raise(c, kFn, rc2);
  *flag = static_cast<int>(static_cast<unsigned>(v.words[0]));
  // As in MPICH: every member reports MPIX_ERR_PROC_FAILED while some failure
  // the members agreed on is not acknowledged here (the flag is agreed all the same).
  for (int r = 0; r < c->size(); ++r) {
    if (v.has_failed(r) && !std::binary_search(c->acked_failed.begin(), c->acked_failed.end(), r)) {
      return raise(c, kFn,
                   fail(MPIX_ERR_PROC_FAILED, "rank {} of comm failed and MPIX_Comm_failure_ack has not acknowledged it", r));
    }
  }
  return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  const ApiCall call("MPIX_Comm_shrink");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPIX_Comm_shrink";
  Comm* c = nullptr;
  int rc = lookup_intra(kFn, comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  State& s = state();
  s.slots.begin_agreement(c->slot);
  struct End {
    ContextSlots& slots;
    int parent_slot;
    ~End() { slots.end_agreement(parent_slot); }
  } end{s.slots, c->slot};
  for (;;) {
    Vote v(c->size());
    std::uint64_t offer[ContextSlots::kWords];
    const bool complete = s.slots.offer(c->slot, offer);
    std::memcpy(v.slots(), offer, sizeof offer);
    v.words[0] = complete ? 1 : 0;  // the flag: 1 after the AND = every member offered all it has free
    rc = agree_on(*c, v);
    s.slots.withdraw(offer);
    if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
    std::uint64_t common[ContextSlots::kWords];
    std::memcpy(common, v.slots(), sizeof common);
    const int slot = ContextSlots::lowest(common);
    if (slot < 0) {
      if (v.words[0] != 0)
        return raise(c, kFn, fail(MPI_ERR_OTHER, "no context id is free at every member ({} communicators exist)",
                                  kContextSlots));
      ApiCall::release_for_idle();  // another agreement here leads (MPI_THREAD_MULTIPLE)
      continue;
    }
    std::vector<int> members;
    for (int r = 0; r < c->size(); ++r) {
      if (!v.has_failed(r)) members.push_back(c->world_of(r));
    }
    if (int rc2 = register_comm(*c, std::move(members), slot, newcomm)) return raise(c, kFn, rc2);
    return MPI_SUCCESS;
  }
}

