#include "mpi/internal/internal_coll.hpp"

#include <cstring>

#include "mpi.h"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {
namespace {

int check(mpcpi::Errc e) { return engine_error(e); }

// Where an internal collective's messages go: comm's collective context
// under the operation's own tag, or, for MPI_Comm_create_group's members,
// the parent's reserved3 context under the call's tag for every operation.
// One call's operations run one after another and each message has one
// direction (to the root, from the root, to the next rank of a round), so
// they need no tags of their own there.
struct Lane {
  std::uint32_t ctx;
  int tag;
};
Lane lane(const Comm& comm, int tag) {
  if (comm.create_group_tag >= 0) return {comm.context(ContextKind::reserved3), comm.create_group_tag};
  if (!comm.coll_bound) bind_collective_context(comm);
  return {comm.context(ContextKind::collective), tag};
}

}  // namespace

int internal_barrier(const Comm& comm) {
  const int n = comm.size();
  const int me = comm.rank;
  mpcpi::Engine& eng = engine();
  int round = 0;
  for (int dist = 1; dist < n; dist *= 2, ++round) {
    int to = comm.world_of((me + dist) % n);
    int from = comm.world_of((me - dist + n) % n);
    const Lane l = lane(comm, kTagBarrier + round);
    mpcpi::Request* rreq = nullptr;
    if (int rc = check(eng.irecv(nullptr, 0, from, l.tag, l.ctx, rreq))) return rc;
    if (int rc = check(eng.send(nullptr, 0, to, l.tag, l.ctx, mpcpi::SendMode::standard))) {
      return rc;
    }
    if (int rc = check(eng.wait(rreq, nullptr))) return rc;
  }
  return MPI_SUCCESS;
}

int internal_allgather(const Comm& comm, const void* mine, std::size_t bytes,
                       std::vector<char>& out) {
  const int n = comm.size();
  mpcpi::Engine& eng = engine();
  out.assign(static_cast<std::size_t>(n) * bytes, 0);
  std::memcpy(out.data() + comm.rank * bytes, mine, bytes);
  if (n == 1) return MPI_SUCCESS;
  const int root = comm.world_of(0);
  const Lane up = lane(comm, kTagAllgather), down = lane(comm, kTagAllgatherBcast);
  if (comm.rank != 0) {
    if (int rc = check(eng.send(mine, bytes, root, up.tag, up.ctx, mpcpi::SendMode::standard))) {
      return rc;
    }
    return check(eng.recv(out.data(), out.size(), root, down.tag, down.ctx, nullptr));
  }
  for (int r = 1; r < n; ++r) {
    if (int rc = check(eng.recv(out.data() + r * bytes, bytes, comm.world_of(r), up.tag, up.ctx,
                                nullptr))) {
      return rc;
    }
  }
  // Non-blocking sends so that a slow rank does not serialise the others.
  std::vector<mpcpi::Request*> reqs(n, nullptr);
  int first_error = MPI_SUCCESS;
  for (int r = 1; r < n; ++r) {
    int rc = check(eng.isend(out.data(), out.size(), comm.world_of(r), down.tag, down.ctx,
                             mpcpi::SendMode::standard, reqs[r]));
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  }
  for (int r = 1; r < n; ++r) {
    if (reqs[r] == nullptr) continue;
    int rc = check(eng.wait(reqs[r], nullptr));
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  }
  return first_error;
}

int internal_bcast(const Comm& comm, int root, void* data, std::size_t bytes) {
  const int n = comm.size();
  const Lane l = lane(comm, kTagBcast);
  mpcpi::Engine& eng = engine();
  if (comm.rank != root) return check(eng.recv(data, bytes, comm.world_of(root), l.tag, l.ctx, nullptr));
  std::vector<mpcpi::Request*> reqs(n, nullptr);
  int first_error = MPI_SUCCESS;
  for (int r = 0; r < n; ++r) {
    if (r == root) continue;
    int rc = check(eng.isend(data, bytes, comm.world_of(r), l.tag, l.ctx, mpcpi::SendMode::standard,
                             reqs[r]));
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  }
  for (int r = 0; r < n; ++r) {
    if (reqs[r] == nullptr) continue;
    int rc = check(eng.wait(reqs[r], nullptr));
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  }
  return first_error;
}

}  // namespace mpi
