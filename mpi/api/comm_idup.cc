// MPI_Comm_idup / MPI_Comm_idup_with_info: MPI_Comm_dup as a nonblocking
// collective. The agreement on a context slot runs on a fiber
// (coll/nonblocking.hpp) with the blocking creations' two steps
// (comm_factory.hpp, confirm_slot): every member contributes its free
// slots, all pick the lowest common one, each takes it at once if it is
// still free here, and a second exchange tells whether every member got it
// (otherwise those that took it give it back and the round repeats). On an
// inter-communicator "every member" is both groups: each group combines its
// words, the leaders swap theirs, and each leader hands the result to its
// group (intercomm.hpp's bridged exchange, written for the fiber), so the
// call returns at once there too.
#include <cstring>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

constexpr int kWords = ContextSlots::kWords;

// Every rank's `bytes` at `mine`, by rank, through the fiber-aware channel.
int gather_all(CollChannel& ch, const void* mine, std::size_t bytes, std::vector<char>& all) {
  const int n = ch.size();
  all.assign(static_cast<std::size_t>(n) * bytes, 0);
  std::memcpy(all.data() + static_cast<std::size_t>(ch.rank()) * bytes, mine, bytes);
  std::vector<std::size_t> offsets(n + 1);
  for (int r = 0; r <= n; ++r) offsets[r] = static_cast<std::size_t>(r) * bytes;
  AllgatherAlgo algo;
  if (int rc = choose_allgather(all.size(), n, algo)) return rc;
  return allgather_bytes(ch, all.data(), offsets, algo);
}

// words &= every member's words, over the members of an intra-communicator.
int and_over(const Comm& c, std::uint32_t seq, std::uint64_t (&words)[kWords]) {
  CollChannel ch(c, CollTag::allgather, seq);
  std::vector<char> all;
  if (int rc = gather_all(ch, words, sizeof words, all)) return rc;
  for (int r = 0; r < c.size(); ++r) {
    for (int w = 0; w < kWords; ++w) {
      std::uint64_t x;
      std::memcpy(&x, all.data() + r * sizeof words + w * sizeof x, sizeof x);
      words[w] &= x;
    }
  }
  return MPI_SUCCESS;
}

// words &= every member's words, over both groups of `c` when it is an
// inter-communicator: the local group's AND, swapped between the leaders
// (local rank 0 with remote rank 0), then sent by each leader to its group.
int and_across(const Comm& c, std::uint32_t seq, std::uint64_t (&words)[kWords]) {
  if (!c.is_inter()) return and_over(c, seq, words);
  const Comm& local = *c.local;
  if (int rc = and_over(local, seq, words)) return rc;
  CollChannel group(local, CollTag::bcast, seq);
  if (local.rank != 0) return group.recv(0, words, sizeof words);
  CollChannel cross(c, CollTag::allgather, seq);
  std::uint64_t theirs[kWords];
  if (int rc = cross.sendrecv(0, words, sizeof words, 0, theirs, sizeof theirs)) return rc;
  for (int w = 0; w < kWords; ++w) words[w] &= theirs[w];
  for (int r = 1; r < local.size(); ++r) {
    if (int rc = group.isend(r, words, sizeof words)) return rc;
  }
  return group.wait_all();
}

int agree_slot_nonblocking(const Comm& c, std::uint32_t seq, int& slot) {
  State& s = state();
  for (;;) {
    std::uint64_t common[kWords];
    s.slots.to_words(common);
    if (int rc = and_across(c, seq, common)) return rc;
    slot = ContextSlots::lowest(common);
    if (slot < 0) return fail(MPI_ERR_OTHER, "no context id is free at every member");
    const bool took = s.slots.is_free(slot);
    if (took) s.slots.take(slot);
    // Whether every member took it: the AND of one flag word each.
    std::uint64_t everyone[kWords] = {};
    everyone[0] = took ? 1 : 0;
    for (int w = 1; w < kWords; ++w) everyone[w] = ~std::uint64_t{0};
    if (int rc = and_across(c, seq, everyone)) {
      if (took) s.slots.release(slot);
      return rc;
    }
    if (everyone[0] == 1) return MPI_SUCCESS;
    if (took) s.slots.release(slot);
  }
}

// MPI_Comm_idup and MPI_Comm_idup_with_info after their own checks: `info`
// becomes the new communicator's hints.
int start_idup(const char* fn, Comm* c, MPI_Comm comm, std::shared_ptr<Info> info,
               MPI_Comm* newcomm, MPI_Request* request) {
  return launch_collective(*c, fn, {CollMode::nonblocking, request, MPI_INFO_NULL},
                           keep_objects(comm, {}), [c, newcomm, info](std::uint32_t seq) {
    int slot = -1;
    int rc = agree_slot_nonblocking(*c, seq, slot);
    MPI_Comm h = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS) {
      rc = c->is_inter() ? register_inter(*c, c->group->members(),
                                          c->remote_group->members(), slot, &h)
                         : register_comm(*c, c->group->members(), slot, &h);
    }
    if (rc == MPI_SUCCESS) {
      CommPtr* created = state().comms.find(h);
      (*created)->info = info;
      (*created)->topo = c->topo;  // a duplicate keeps the topology, as in dup_comm
      rc = copy_attributes(*c, **created);
    }
    *newcomm = h;
    return rc;
  });
}

}  // namespace

extern "C" int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const ApiCall call("MPI_Comm_idup");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_idup";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  return start_idup(kFn, c, comm, c->info, newcomm, request);
}

extern "C" int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                                       MPI_Request* request) {
  const ApiCall call("MPI_Comm_idup_with_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_idup_with_info";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  std::shared_ptr<Info> hints;
  if (int rc = check_dup_with_info(comm, info, newcomm, c, hints)) return raise(c, kFn, rc);
  return start_idup(kFn, c, comm, std::move(hints), newcomm, request);
}
