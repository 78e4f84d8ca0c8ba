// Regular gather, scatter, allgather and all-to-all through the node
// segment (node_exchange.hpp): pack, one node collective, unpack.
#include "mpi/internal/coll/node_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "mpi.h"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {
namespace {

std::size_t bytes_of(std::int64_t count, const Datatype& type) {
  return static_cast<std::size_t>(count * type.size());
}

// `count` instances at buf as exactly `block` packed bytes. A signature
// that does not match the others' (an erroneous program) still takes part,
// padded or cut, so that no rank waits for it forever, and is an error:
// MPI_ERR_TRUNCATE when cut, MPI_ERR_OTHER when padded.
int packed_block(const void* buf, std::int64_t count, const Datatype& type, std::size_t block,
                 Staging& staging, const void*& out) {
  const std::size_t have = bytes_of(count, type);
  if (have == block) {
    out = prepare_send(buf, count, type, staging).data;
    return MPI_SUCCESS;
  }
  staging.allocate(std::max(have, block));
  std::memset(staging.data.get(), 0, staging.size);
  pack(type, buf, count, staging.data.get());
  out = staging.data.get();
  return fail(have > block ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
              "collective size mismatch: this rank sends {} bytes where its receive count and "
              "datatype make {} per rank",
              have, block);
}

// The first of two results that failed: a rank whose own block could not be packed still takes
// its part in the exchange (the others wait for it), and a broken exchange (a member failed)
// must not read as success.
int first_failure(int first, int then) { return first != MPI_SUCCESS ? first : then; }

// Unpacks `block` bytes into `count` instances at buf (at most what they hold).
int unpack_block(const void* data, std::size_t block, void* buf, std::int64_t count, const Datatype& type) {
  const auto room = static_cast<std::size_t>(count * type.size());
  unpack(type, buf, count, data, static_cast<std::int64_t>(std::min(room, block)));
  if (room >= block) return MPI_SUCCESS;
  return fail(MPI_ERR_TRUNCATE, "{} bytes arrived for a receive buffer of {}", block, room);
}

// The parts as one run of n blocks of `block` bytes in the user's memory,
// when they lie that way (a dense type, the regular layout), else null.
char* dense_run(const std::vector<Part>& parts, std::size_t block) {
  const Part& first = parts[0];
  const auto n = static_cast<std::int64_t>(parts.size());
  if (!first.type->contiguous_for(first.count * n) ||
      static_cast<std::size_t>(first.count * first.type->size()) != block) {
    return nullptr;
  }
  for (std::int64_t r = 1; r < n; ++r) {
    const Part& p = parts[static_cast<std::size_t>(r)];
    if (p.type != first.type || p.count != first.count ||
        p.buf != first.buf + r * first.count * first.type->extent()) {
      return nullptr;
    }
  }
  return data_start(first.buf, *first.type);
}

// The user's n blocks as one packed run in their own memory, when they lie
// that way (the regular layout of a dense type whose block is `block`
// bytes), else null: then a BlockArea stages them. Checked first, so that
// the common case builds no BlockArea (three vectors per call).
char* dense_blocks(void* buf, const Datatype& type, const int* counts, const int* displs, int n,
                   std::size_t block) {
  if (displs != nullptr || n < 1 || !type.contiguous_for(std::int64_t{counts[0]} * n) ||
      static_cast<std::size_t>(counts[0] * type.size()) != block) {
    return nullptr;
  }
  return data_start(static_cast<char*>(buf), type);
}

// Gathers every rank's block into `all` (such a dense run; every rank's
// when root < 0). This rank's block is packed from sendbuf, or already in
// place there.
int gather_into(Comm& comm, const void* sendbuf, std::int64_t sendcount, const Datatype* sendtype,
                char* all, std::size_t block, int root) {
  Staging staging;
  const void* mine = all + block * static_cast<std::size_t>(comm.rank);
  int rc = MPI_SUCCESS;
  std::size_t have = block;
  if (sendbuf != MPI_IN_PLACE) {
    rc = packed_block(sendbuf, sendcount, *sendtype, block, staging, mine);
    have = bytes_of(sendcount, *sendtype);
  }
  return first_failure(rc, node_gather(comm, mine, block, all, root, have));
}

}  // namespace

bool node_exchange_fits(Comm& comm, NodeExchange kind, std::size_t block, bool forced) {
  if (block == 0) return false;
  // A scatter root and all-to-all put every block in one slot; a gather's
  // blocks of any size go in chunks (node_gather).
  const auto n = static_cast<std::size_t>(comm.size());
  if (kind == NodeExchange::alltoall) {
    const std::size_t chunk = node_alltoall_chunk(block, n);
    return chunk != 0 && node_collective(comm, chunk * (n - 1), forced);
  }
  return node_collective(comm, kind == NodeExchange::scatter ? block * n : node_chunk_bytes(block, 1), forced);
}

int node_allgather_run(Comm& comm, const AllgatherArgs& a, std::size_t block) {
  if (char* all = dense_blocks(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, comm.size(), block)) {
    return gather_into(comm, a.sendbuf, a.sendcount, a.sendtype, all, block, -1);
  }
  BlockArea area(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, comm.size());
  Staging staging;
  const void* mine = nullptr;
  int rc = MPI_SUCCESS;
  std::size_t have = block;
  if (a.sendbuf == MPI_IN_PLACE) {
    area.load(comm.rank);
    mine = area.packed() + area.offset(comm.rank);
  } else {
    rc = packed_block(a.sendbuf, a.sendcount, *a.sendtype, block, staging, mine);
    have = bytes_of(a.sendcount, *a.sendtype);
  }
  rc = first_failure(rc, node_gather(comm, mine, block, area.packed(), -1, have));
  area.store_all();
  return rc;
}

int node_gather_run(Comm& comm, const GatherArgs& a, std::size_t block) {
  const bool root = comm.rank == a.root;
  Staging staging;
  const void* mine = nullptr;
  int rc = MPI_SUCCESS;
  if (!root) {
    rc = packed_block(a.sendbuf, a.sendcount, *a.sendtype, block, staging, mine);
    return first_failure(rc, node_gather(comm, mine, block, nullptr, a.root, bytes_of(a.sendcount, *a.sendtype)));
  }
  if (char* all = dense_blocks(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, comm.size(), block)) {
    return gather_into(comm, a.sendbuf, a.sendcount, a.sendtype, all, block, a.root);
  }
  BlockArea area(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, comm.size());
  std::size_t have = block;
  if (a.sendbuf == MPI_IN_PLACE) {
    area.load(comm.rank);
    mine = area.packed() + area.offset(comm.rank);
  } else {
    rc = packed_block(a.sendbuf, a.sendcount, *a.sendtype, block, staging, mine);
    have = bytes_of(a.sendcount, *a.sendtype);
  }
  rc = first_failure(rc, node_gather(comm, mine, block, area.packed(), a.root, have));
  area.store_all();
  return rc;
}

int node_scatter_run(Comm& comm, const ScatterArgs& a, std::size_t block) {
  if (comm.rank != a.root) {
    if (a.recvtype->contiguous_for(a.recvcount) &&
        static_cast<std::size_t>(a.recvcount * a.recvtype->size()) == block) {
      return node_scatter(comm, nullptr, block, data_start(static_cast<char*>(a.recvbuf), *a.recvtype),
                          a.root);
    }
    Staging staging;
    staging.allocate(block);
    if (int rc = node_scatter(comm, nullptr, block, staging.data.get(), a.root)) return rc;
    return unpack_block(staging.data.get(), block, a.recvbuf, a.recvcount, *a.recvtype);
  }
  const char* all = dense_blocks(const_cast<void*>(a.sendbuf), *a.sendtype, a.sendcounts, a.displs,
                                comm.size(), block);
  std::size_t own_at = block * static_cast<std::size_t>(comm.rank);
  std::optional<BlockArea> area;
  if (all == nullptr) {
    area.emplace(const_cast<void*>(a.sendbuf), *a.sendtype, a.sendcounts, a.displs, comm.size());
    area->load_all();
    all = area->packed();
    own_at = area->offset(comm.rank);
  }
  if (int rc = node_scatter(comm, all, block, nullptr, a.root)) return rc;
  if (a.recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return unpack_block(all + own_at, block, a.recvbuf, a.recvcount, *a.recvtype);
}

int node_alltoall_run(Comm& comm, const std::vector<Part>& sends, const std::vector<Part>& recvs,
                      std::size_t block) {
  const auto n = static_cast<std::size_t>(comm.size());
  const bool in_place = sends.empty();  // the data to send is in the receive parts
  // A reused buffer per thread, no allocation per call (a slot's worth,
  // unless a large all-to-all of a non-dense layout went by).
  thread_local std::vector<char> out, in;
  const char* send_run = in_place ? nullptr : dense_run(sends, block);
  char* recv_run = in_place ? nullptr : dense_run(recvs, block);
  if (recv_run != nullptr && send_run != nullptr) return node_alltoall(comm, send_run, block, recv_run);
  out.resize(n * block);
  in.resize(n * block);
  int rc = MPI_SUCCESS;
  for (std::size_t r = 0; r < n; ++r) {
    const Part& s = in_place ? recvs[r] : sends[r];
    Staging staging;
    const void* packed = nullptr;
    const int prc = packed_block(s.buf, s.count, *s.type, block, staging, packed);
    if (rc == MPI_SUCCESS) rc = prc;
    std::memcpy(out.data() + r * block, packed, block);
  }
  rc = first_failure(rc, node_alltoall(comm, out.data(), block, in.data()));
  for (std::size_t r = 0; r < n; ++r) {
    const int urc = unpack_block(in.data() + r * block, block, recvs[r].buf, recvs[r].count,
                                 *recvs[r].type);
    if (rc == MPI_SUCCESS) rc = urc;
  }
  return rc;
}

int node_alltoallv_run(Comm& comm, const std::vector<Part>& sends, const std::vector<Part>& recvs) {
  const std::size_t n = recvs.size();
  // Reused per thread: a small all-to-all allocates nothing.
  thread_local std::vector<NodeSend> out;
  thread_local std::vector<NodeRecv> in;
  out.resize(n);
  in.resize(n);
  // Parts of a non-dense layout are packed into staging[r], or land in staging[n + r] and are
  // unpacked after.
  std::vector<Staging> staging;
  auto stage = [&](std::size_t i) -> Staging& {
    if (staging.empty()) staging.resize(2 * n);
    return staging[i];
  };
  Staging unused;  // what a dense part passes: prepare_send/recv leave it alone
  for (std::size_t r = 0; r < n; ++r) {
    const Part& s = sends[r];
    const Part& d = recvs[r];
    const SendBytes sb =
        prepare_send(s.buf, s.count, *s.type, s.type->contiguous_for(s.count) ? unused : stage(r));
    out[r] = {static_cast<const std::byte*>(sb.data), sb.bytes};
    const RecvBytes rb =
        prepare_recv(d.buf, d.count, *d.type, d.type->contiguous_for(d.count) ? unused : stage(n + r));
    in[r] = {static_cast<std::byte*>(rb.data), rb.capacity};
  }
  const int rc = node_alltoallv(comm, out.data(), in.data());
  for (std::size_t r = 0; r < n && !staging.empty(); ++r) {
    const Part& d = recvs[r];
    if (staging[n + r].data) unpack(*d.type, d.buf, d.count, in[r].at, static_cast<std::int64_t>(in[r].bytes));
  }
  return rc;
}

}  // namespace mpi
