// The collectives where every rank sends to and receives from every other:
// MPI_Allgather(v), MPI_Alltoall(v,w), and the work of their nonblocking and
// persistent forms.
#include <algorithm>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/entry.hpp"
#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/coll/inter.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/coll/node_exchange.hpp"
#include "mpi/internal/coll/select.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace mpi {

int coll_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, const int* recvcounts, const int* displs, bool vform,
                   int regular_count, MPI_Datatype recvtype, MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Datatype *st = nullptr, *rt = nullptr;
  int rc = lookup_comm(comm, c);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (rc == MPI_SUCCESS && c->is_inter()) {
    rc = check_not_in_place(sendbuf, "sendbuf", "inter-communicator collectives have no in-place form");
  }
  // Blocks of recvbuf: one per rank, of the remote group on an inter-communicator.
  const int n = rc == MPI_SUCCESS ? c->peer_size() : 0;
  if (rc == MPI_SUCCESS && !in_place) {
    rc = check_buffer_args({sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"}, st);
  }
  std::vector<int> regular;
  if (rc == MPI_SUCCESS && !vform) {
    rc = check_count(regular_count, "recvcount");
    regular.assign(n, regular_count);
  } else if (rc == MPI_SUCCESS) {
    rc = check_counts(recvcounts, n, "recvcounts");
    if (rc == MPI_SUCCESS) rc = check_not_null(displs, "displs");
  }
  if (rc == MPI_SUCCESS) rc = lookup_type(recvtype, rt, true, "recvtype");
  if (rc == MPI_SUCCESS) rc = check_not_in_place(recvbuf, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
  // The regular form's blocks are all alike: one check covers them.
  for (int r = 0; rc == MPI_SUCCESS && r < (vform ? n : std::min(n, 1)); ++r) {
    rc = check_buffer(recvbuf, vform ? recvcounts[r] : regular_count, *rt, "recvbuf");
  }
  if (rc == MPI_SUCCESS && !in_place && !c->is_inter() && sendcount > 0 && st->size() > 0) {
    const std::int64_t at = vform ? displs[c->rank] : std::int64_t{c->rank} * regular_count;
    rc = check_no_alias(sendbuf, recvbuf, static_cast<const char*>(recvbuf) + at * rt->extent(),
                        "sendbuf", "recvbuf");
  }
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  return run_collective(*c, fn, how, [&] { return keep_objects(comm, {sendtype, recvtype}); },
                        [=, regular = std::move(regular)](std::uint32_t seq) {
    const int* counts = vform ? recvcounts : regular.data();
    static const bool forced = coll_forced("LAPIS_COLL_ALLGATHER");
    // Blocking, regular: on one node, shared memory.
    const std::size_t block =
        vform || c->is_inter() ? 0 : static_cast<std::size_t>(regular_count * rt->size());
    if (seq == 0 && node_exchange_fits(*c, NodeExchange::allgather, block, forced)) {
      return node_allgather_run(*c, {sendbuf, sendcount, st, recvbuf, counts, displs, rt}, block);
    }
    CollChannel ch(*c, CollTag::allgather, seq);
    return ch.carrying_on([&] {
      const AllgatherArgs args{sendbuf, sendcount, st, recvbuf, counts, displs, rt};
      return c->is_inter() ? inter_allgather_run(ch, args) : allgather_run(ch, args);
    });
  });
}

}  // namespace mpi

namespace {

int parts_of(const Side& s, int n, std::vector<Part>& parts) {
  if (s.counts == nullptr) {
    if (int rc = check_count(s.regular, s.counts_arg)) return rc;
  } else {
    if (int rc = check_counts(s.counts, n, s.counts_arg)) return rc;
    if (int rc = check_not_null(s.displs, s.displs_arg)) return rc;
  }
  if (s.displs_in_bytes) {  // Alltoallw: one type per peer
    if (int rc = check_not_null(s.types, s.type_arg)) return rc;
  }
  parts.resize(n);
  std::int64_t next = 0;
  for (int r = 0; r < n; ++r) {
    const Datatype* t = nullptr;
    if (int rc = lookup_type(s.types ? s.types[r] : s.type, t, true, s.type_arg)) return rc;
    const std::int64_t count = s.counts ? s.counts[r] : s.regular;
    if (int rc = check_buffer(s.buf, static_cast<int>(count), *t, s.buf_arg)) return rc;
    std::int64_t offset;
    if (s.counts == nullptr) {
      offset = next * t->extent();
      next += count;
    } else {
      offset = s.displs_in_bytes ? s.displs[r] : std::int64_t{s.displs[r]} * t->extent();
    }
    parts[r] = {reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(s.buf) + offset), count,
                t};
  }
  return MPI_SUCCESS;
}

}  // namespace

namespace mpi {

int coll_alltoall(const char* fn, const Side& send, const Side& recv, MPI_Comm comm,
                  const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  std::vector<Part> sends, recvs;
  if (rc == MPI_SUCCESS) rc = check_not_in_place(recv.buf, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
  if (rc == MPI_SUCCESS && c->is_inter()) {
    rc = check_not_in_place(send.buf, "sendbuf", "inter-communicator collectives have no in-place form");
  }
  // One part per rank, of the remote group on an inter-communicator.
  if (rc == MPI_SUCCESS && send.buf != MPI_IN_PLACE) rc = parts_of(send, c->peer_size(), sends);
  if (rc == MPI_SUCCESS) rc = parts_of(recv, c->peer_size(), recvs);
  const auto moves = [](const Part& p) { return p.count > 0 && p.type->size() > 0; };
  if (rc == MPI_SUCCESS && !c->is_inter() && std::any_of(sends.begin(), sends.end(), moves)) {
    rc = check_no_alias(send.buf, recv.buf, nullptr, "sendbuf", "recvbuf");
  }
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  // MPI_Alltoall (one count and type per side, not the v and w forms).
  const bool regular = send.counts == nullptr && recv.counts == nullptr && send.types == nullptr &&
                       recv.types == nullptr;
  auto keep = [&] {
    auto k = keep_objects(comm, {send.type, recv.type});
    if (send.types != nullptr && send.buf != MPI_IN_PLACE) keep_types(k, send.types, c->peer_size());
    if (recv.types != nullptr) keep_types(k, recv.types, c->peer_size());
    return k;
  };
  return run_collective(*c, fn, how, keep,
                        [=, sends = std::move(sends), recvs = std::move(recvs)](std::uint32_t seq) {
    static const bool forced = coll_forced("LAPIS_COLL_ALLTOALL");
    // Blocking, regular: on one node, shared memory.
    const std::size_t block =
        !regular || c->is_inter() ? 0 : static_cast<std::size_t>(recvs[0].count * recvs[0].type->size());
    if (seq == 0 && node_exchange_fits(*c, NodeExchange::alltoall, block, forced)) {
      return node_alltoall_run(*c, sends, recvs, block);
    }
    // v and w: single-copy writes where ranks may (node_alltoallv). The regular form keeps its
    // rounds: with every rank in the call they win (4 ranks on 2 cores, us per call, 3 runs
    // each: 32 KiB 12-20 against 25-30, 1 MiB 552-919 against 817-1337, 8 MiB 7993-9624
    // against 10291-11127), and NPB FT ran no faster with the writes.
    if (seq == 0 && !regular && !sends.empty() && node_alltoallv_fits(*c, forced)) {
      return node_alltoallv_run(*c, sends, recvs);
    }
    CollChannel ch(*c, CollTag::alltoall, seq);
    return ch.carrying_on([&] {
      return c->is_inter() ? inter_alltoall_run(ch, sends, recvs) : alltoall_run(ch, sends, recvs);
    });
  });
}

}  // namespace mpi

extern "C" int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Allgather");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr,
                        false, recvcount, recvtype, comm, {});
}

extern "C" int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Allgatherv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, true, 0, recvtype, comm, {});
}

extern "C" int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Alltoall");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoall",
                  {sendbuf, nullptr, nullptr, nullptr, sendtype, sendcount, false, "sendbuf",
                   "sendcount", "sdispls", "sendtype"},
                  {recvbuf, nullptr, nullptr, nullptr, recvtype, recvcount, false, "recvbuf",
                   "recvcount", "rdispls", "recvtype"},
                  comm, {});
}

extern "C" int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Alltoallv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoallv",
                  {sendbuf, sendcounts, sdispls, nullptr, sendtype, 0, false, "sendbuf",
                   "sendcounts", "sdispls", "sendtype"},
                  {recvbuf, recvcounts, rdispls, nullptr, recvtype, 0, false, "recvbuf",
                   "recvcounts", "rdispls", "recvtype"},
                  comm, {});
}

extern "C" int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf,
                             const int recvcounts[], const int rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const ApiCall call("MPI_Alltoallw");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoallw",
                  {sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, 0, true, "sendbuf",
                   "sendcounts", "sdispls", "sendtypes"},
                  {recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, 0, true,
                   "recvbuf", "recvcounts", "rdispls", "recvtypes"},
                  comm, {});
}
