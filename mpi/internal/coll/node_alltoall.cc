// MPI_Alltoall and MPI_Alltoallv/w through the node segment (node.hpp).
#include <algorithm>
#include <cstring>

#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/coll/node_segment.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {

using namespace node_segment;

namespace {

// Where rank `from`'s slot holds its piece for rank `to`: the pieces for
// the n - 1 others side by side. A rank's block to itself never goes
// through the slot (one copy instead of two: 2 ranks moved 4 MiB per rank
// for 1 MiB blocks, now 3).
std::size_t piece_index(std::size_t from, std::size_t to) { return to < from ? to : to - 1; }

// One segment collective: bytes [at, at + len) of every block (blocks
// `stride` apart in out and in).
int alltoall_one(NodeSegment& s, const std::byte* out, std::byte* in, std::size_t stride, std::size_t at,
                 std::size_t len) {
  const std::uint64_t g = ++s.gen;
  const std::size_t n = s.at.size();
  const auto me = static_cast<std::size_t>(s.rank);
  const std::size_t total = len * (n - 1);
  const bool published = publish_with(s, total, g, [&](std::byte* slot) {
    for (std::size_t d = 0; d < n; ++d) {
      if (d != me) std::memcpy(slot + piece_index(me, d) * len, out + d * stride + at, len);
    }
  });
  if (!published) return broken_error(s);
  // Its own block while the others publish theirs.
  if (in != out) std::memcpy(in + me * stride + at, out + me * stride + at, len);
  if (!wait_all_published(s, g)) return broken_error(s);
  const int rc = check_all_published(s, g, total);
  for (std::size_t r = 0; r < n && rc == MPI_SUCCESS; ++r) {
    if (r == me) continue;
    std::memcpy(in + r * stride + at, data_of(*s.at[r], g, total) + piece_index(r, me) * len, len);
  }
  finish(s, g);
  return rc;
}

}  // namespace

std::size_t node_alltoall_chunk(std::size_t bytes, std::size_t ranks) {
  const std::size_t pieces = std::max<std::size_t>(ranks, 2) - 1;  // in a slot: all but its own
  if (bytes * pieces <= kNodeSlotBytes) return bytes;
  return kNodeSlotBytes / pieces / 64 * 64;
}

int node_alltoall(Comm& comm, const void* out, std::size_t bytes, void* in) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  // node_exchange_fits refuses a chunk of 0 (over 1024 ranks); should a
  // caller skip it, a byte per round is slow but still ends.
  const std::size_t chunk = std::max<std::size_t>(node_alltoall_chunk(bytes, s.at.size()), 1);
  const auto* from = static_cast<const std::byte*>(out);
  auto* to = static_cast<std::byte*>(in);
  for (std::size_t at = 0; at < bytes; at += chunk) {
    if (int rc = alltoall_one(s, from, to, bytes, at, std::min(chunk, bytes - at))) return rc;
  }
  return MPI_SUCCESS;
}

namespace {

// node_alltoallv's record, in every rank's slot, of its exchange with rank r.
struct DirectEntry {
  std::uint64_t recv_at;     // where r's piece lands here (written directly by r)
  std::uint64_t recv_bytes;  // room there
  std::uint64_t send_at;     // this rank's piece for r, from the slot's data, when inline
  std::uint64_t send_bytes;
};
struct DirectHead {
  std::uint64_t inline_sends;  // 1: this rank's pieces are in its slot; 0: it writes them
};
constexpr std::size_t kDirectMaxRanks = 1024;  // the table takes half a slot

std::size_t direct_table_bytes(std::size_t n) {
  return (sizeof(DirectHead) + n * sizeof(DirectEntry) + 63) / 64 * 64;
}

int direct_truncated(std::uint64_t sent, std::uint64_t room) {
  return fail(MPI_ERR_TRUNCATE, "{} bytes sent for a receive buffer of {}", sent, room);
}

}  // namespace

bool node_alltoallv_fits(Comm& comm, bool forced) {
  return static_cast<std::size_t>(comm.size()) <= kDirectMaxRanks && node_collective(comm, 0, forced) &&
         comm.node->writes_near_all;
}

int node_alltoallv(Comm& comm, const NodeSend* out, const NodeRecv* in) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  const std::size_t n = s.at.size();
  const auto me = static_cast<std::size_t>(s.rank);
  const std::size_t table = direct_table_bytes(n);
  std::size_t sending = 0;  // to the others
  for (std::size_t d = 0; d < n; ++d) sending += d == me ? 0 : out[d].bytes;
  const bool inline_sends = sending <= kNodeSlotBytes - table;
  const std::uint64_t g = ++s.gen;
  const bool published = publish_with(s, table + (inline_sends ? sending : 0), g, [&](std::byte* slot) {
    reinterpret_cast<DirectHead*>(slot)->inline_sends = inline_sends ? 1 : 0;
    auto* entry = reinterpret_cast<DirectEntry*>(slot + sizeof(DirectHead));
    std::size_t at = 0;
    for (std::size_t r = 0; r < n; ++r) {
      entry[r] = {reinterpret_cast<std::uint64_t>(in[r].at), in[r].bytes, at, out[r].bytes};
      if (!inline_sends || r == me || out[r].bytes == 0) continue;
      std::memcpy(slot + table + at, out[r].at, out[r].bytes);
      at += out[r].bytes;
    }
  });
  if (!published) return broken_error(s);
  FirstError err;
  // Its own piece while the others publish theirs.
  if (const std::size_t own = std::min(out[me].bytes, in[me].bytes); own > 0) std::memcpy(in[me].at, out[me].at, own);
  if (out[me].bytes > in[me].bytes) err.note(direct_truncated(out[me].bytes, in[me].bytes));
  if (!wait_all_published(s, g)) return broken_error(s);
  lapi::Context& ctx = lapi_context();
  bool any_direct = !inline_sends;
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t r = (me + k) % n;  // the writers start at different receivers
    const std::byte* slot = data_of(*s.at[r], g, kNodeSlotBytes);
    const DirectEntry& with_me = reinterpret_cast<const DirectEntry*>(slot + sizeof(DirectHead))[me];
    if (reinterpret_cast<const DirectHead*>(slot)->inline_sends != 0) {
      const std::size_t len = std::min<std::size_t>(with_me.send_bytes, in[r].bytes);
      if (len > 0) std::memcpy(in[r].at, slot + table + with_me.send_at, len);
      if (with_me.send_bytes > in[r].bytes) err.note(direct_truncated(with_me.send_bytes, in[r].bytes));
    } else {
      any_direct = true;
    }
    if (inline_sends) continue;
    const std::size_t len = std::min<std::size_t>(out[r].bytes, with_me.recv_bytes);
    if (len > 0) {
      if (lapi::Status st = ctx.write_near(s.tasks[r], with_me.recv_at, out[r].at, len); !st.ok()) {
        err.note(fail(MPI_ERR_OTHER, "all-to-all: {}", st.message()));
      }
    }
    if (out[r].bytes > with_me.recv_bytes) err.note(direct_truncated(out[r].bytes, with_me.recv_bytes));
  }
  finish(s, g);
  // Every rank knows alike whether any wrote directly; if so, a barrier
  // says those writes are all in place.
  if (any_direct) {
    if (int brc = node_barrier(comm)) return brc;
  }
  return err.rc;
}
}  // namespace mpi
