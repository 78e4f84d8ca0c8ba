// MPI_Comm_idup: MPI_Comm_dup as a nonblocking collective. The agreement on
// a context slot runs on a fiber (coll/nonblocking.hpp) with the blocking
// creations' two steps (comm_factory.hpp, confirm_slot): every member
// contributes its free slots, all pick the lowest common one, each takes it
// at once if it is still free here, and a second exchange tells whether
// every member got it (otherwise those that took it give it back and the
// round repeats).
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
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

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

int agree_slot_nonblocking(const Comm& c, std::uint32_t seq, int& slot) {
  State& s = state();
  CollChannel ch(c, CollTag::allgather, seq);
  for (;;) {
    std::uint64_t words[ContextSlots::kWords];
    s.slots.to_words(words);
    std::vector<char> all;
    if (int rc = gather_all(ch, words, sizeof words, all)) return rc;
    std::uint64_t common[ContextSlots::kWords];
    for (int w = 0; w < ContextSlots::kWords; ++w) {
      common[w] = ~std::uint64_t{0};
      for (int r = 0; r < c.size(); ++r) {
        std::uint64_t x;
        std::memcpy(&x, all.data() + r * sizeof words + w * sizeof x, sizeof x);
        common[w] &= x;
      }
    }
    slot = ContextSlots::lowest(common);
    if (slot < 0) return fail(MPI_ERR_OTHER, "no context id is free at every member");
    const int took = s.slots.is_free(slot) ? 1 : 0;
    if (took) s.slots.take(slot);
    std::vector<char> flags;
    if (int rc = gather_all(ch, &took, sizeof took, flags)) {
      if (took) s.slots.release(slot);
      return rc;
    }
    bool everyone = true;
    for (int r = 0; r < c.size(); ++r) {
      int f;
      std::memcpy(&f, flags.data() + r * sizeof f, sizeof f);
      everyone = everyone && f == 1;
    }
    if (everyone) return MPI_SUCCESS;
    if (took) s.slots.release(slot);
  }
}

// MPI_Comm_idup and MPI_Comm_idup_with_info after their own checks: `info`
// becomes the new communicator's hints.
int start_idup(const char* fn, Comm* c, MPI_Comm comm, std::shared_ptr<Info> info,
               MPI_Comm* newcomm, MPI_Request* request) {
  if (c->is_inter()) {
    // Inter-communicators: the blocking dup, then a request that is
    // already complete (their agreement is not written for a fiber yet).
    if (int rc2 = check_not_null(request, "request")) return raise(c, fn, rc2);
    if (int rc2 = dup_comm(*c, std::move(info), newcomm)) return raise(c, fn, rc2);
    return MPI_Grequest_start(nullptr, nullptr, nullptr, nullptr, request) == MPI_SUCCESS
               ? MPI_Grequest_complete(*request)
               : MPI_ERR_INTERN;
  }
  return launch_collective(*c, fn, {CollMode::nonblocking, request, MPI_INFO_NULL},
                           keep_objects(comm, {}), [c, newcomm, info](std::uint32_t seq) {
    int slot = -1;
    int rc = agree_slot_nonblocking(*c, seq, slot);
    MPI_Comm h = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS) rc = register_comm(*c, c->group->members(), slot, &h);
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
  InfoPtr hints;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = lookup_info(info, hints, "info");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // Copied now: the program may free or change `info` once the call returns.
  auto copy = hints ? std::make_shared<Info>(*hints) : nullptr;
  return start_idup(kFn, c, comm, std::move(copy), newcomm, request);
}
