// Collectives through shared memory on a node (node.hpp).
#include "mpi/internal/coll/node.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "lapi/line_copy.hpp"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/node_segment.hpp"
#include "mpi/internal/coll/select.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

using namespace node_segment;

namespace {

// Every segment this process set up, live or retired (its communicator
// freed), until MPI_Finalize releases them all. A segment is never freed
// earlier: freeing needs every rank to be done reading it, and waiting for
// that in MPI_Comm_free would make it synchronise (and progress meanwhile
// could unmap other segments still being read). So a process keeps at most
// kMaxSegments; communicators beyond that use point-to-point.
constexpr std::size_t kMaxSegments = 64;  // 64 x ~580 KiB of registered memory
std::mutex g_segments_mutex;  // guards g_segments, g_down (MPI calls on any thread)
std::vector<std::unique_ptr<NodeSegment>> g_segments;
bool g_down = false;  // node_collectives_shutdown ran

bool read_enabled() {
  bool enabled = true;
  return read_coll_shm(enabled) == MPI_SUCCESS && enabled;  // MPI_Init refused bad values
}


// Sets up comm's segment (collective); false when some rank cannot map
// every other's (then nothing is held).
bool set_up(Comm& comm) {
  lapi::Context& ctx = lapi_context();
  const auto n = static_cast<std::size_t>(comm.size());
  bool room;
  {
    std::lock_guard lock(g_segments_mutex);
    room = !g_down && g_segments.size() < kMaxSegments;
  }
  // Interrupt mode keeps point-to-point: the progress thread lands data
  // (UCX's own puts included) that a wait on other processes' flags would
  // not order with this thread, and waits there should sleep, not spin.
  std::int64_t interrupt = 0;
  (void)ctx.qenv(lapi::Query::interrupt_mode, interrupt);
  void* mine = nullptr;
  if (!room || interrupt != 0 || !ctx.alloc_registered(sizeof(NodeRegion), mine).ok()) mine = nullptr;
  if (mine != nullptr) new (mine) NodeRegion();
  const std::uint64_t addr = reinterpret_cast<std::uint64_t>(mine);
  std::vector<char> raw;
  if (internal_allgather(comm, &addr, sizeof addr, raw) != MPI_SUCCESS) return false;
  auto seg = std::make_unique<NodeSegment>();
  seg->rank = comm.rank;
  seg->context = comm.context(ContextKind::collective);
  seg->mine = static_cast<NodeRegion*>(mine);
  seg->at.assign(n, nullptr);
  for (std::size_t r = 0; r < n; ++r) seg->tasks.push_back(static_cast<lapi::TaskId>(comm.world_of(static_cast<int>(r))));
  // 1: this rank mapped every segment; | 2: it also writes into every other rank directly.
  char mapped_all = mine != nullptr ? 1 : 0;
  for (std::size_t r = 0; r < n && mapped_all; ++r) {
    std::uint64_t a;
    std::memcpy(&a, raw.data() + r * sizeof a, sizeof a);
    void* p = nullptr;
    const auto task = static_cast<lapi::TaskId>(comm.world_of(static_cast<int>(r)));
    if (a == 0 || !ctx.map_remote(task, a, sizeof(NodeRegion), p).ok()) {
      mapped_all = 0;
    } else {
      seg->at[r] = static_cast<NodeRegion*>(p);
    }
  }
  bool writes_near = true;
  for (std::size_t r = 0; r < n; ++r) {
    writes_near = writes_near && (r == static_cast<std::size_t>(comm.rank) || ctx.writes_near(seg->tasks[r]));
  }
  if (mapped_all != 0 && writes_near) mapped_all |= 2;
  std::vector<char> every;
  const bool agreed = internal_allgather(comm, &mapped_all, 1, every) == MPI_SUCCESS;
  bool all = agreed;
  seg->writes_near_all = agreed;
  for (char c : every) {
    all = all && (c & 1) != 0;
    seg->writes_near_all = seg->writes_near_all && (c & 2) != 0;
  }
  if (!all) {
    if (mine != nullptr) (void)ctx.free_registered(mine);
    return false;
  }
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  seg->oversubscribed = cores > 0 && static_cast<long>(n) > cores;
  comm.node = seg.get();
  std::lock_guard lock(g_segments_mutex);
  g_segments.push_back(std::move(seg));
  return true;
}

}  // namespace

bool node_collective(Comm& comm, std::size_t bytes, bool algorithm_forced) {
  static const bool enabled = read_enabled();
  if (!enabled || algorithm_forced || comm.is_inter() || comm.size() < 2 || bytes > kNodeSlotBytes) return false;
  if (comm.node_state == 0) comm.node_state = set_up(comm) ? 1 : -1;
  return comm.node_state == 1;
}

int node_barrier(Comm& comm) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  const std::uint64_t g = ++s.gen;
  if (!publish(s, nullptr, 0, g) || !wait_all_published(s, g)) return broken_error(s);
  finish(s, g);
  return MPI_SUCCESS;
}

namespace {

// A Bcast's chunks, one segment collective each, follow the root's size:
// a rank whose count differs still takes part in every chunk (else the
// segment's collective numbers part ways and the next collective hangs),
// keeps what fits and reports the mismatch.
int bcast_from_root(NodeSegment& s, std::byte* data, std::size_t bytes, int root) {
  NodeRegion& from = *s.at[static_cast<std::size_t>(root)];
  std::size_t total = 0;  // the root's, told by its first chunk
  std::size_t done = 0;
  do {
    const std::uint64_t g = ++s.gen;
    if (!wait_until(s, [&] { return published(from, g); })) return broken_error(s);
    if (done == 0) total = published_bytes(from, g);
    const std::size_t chunk = std::min(kNodeSlotBytes, total - done);
    if (done < bytes) {
      lapi::copy_bulk(data + done, data_of(from, g, chunk), std::min(chunk, bytes - done));
    }
    finish(s, g);
    done += chunk;
  } while (done < total);
  return total == bytes ? MPI_SUCCESS : collective_size_mismatch(root, total, bytes);
}

}  // namespace

int node_bcast(Comm& comm, void* data, std::size_t bytes, int root) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  auto* at = static_cast<std::byte*>(data);
  if (s.rank != root) return bcast_from_root(s, at, bytes, root);
  for (std::size_t done = 0; done < bytes; done += kNodeSlotBytes) {
    const std::uint64_t g = ++s.gen;
    if (!publish(s, at + done, std::min(kNodeSlotBytes, bytes - done), g, bytes - done)) return broken_error(s);
    finish(s, g);
  }
  return MPI_SUCCESS;
}

namespace {

// out = (...((x_0 op x_1) op x_2) ...) op x_{n-1} from every rank's slot of
// collective g (each holding `total` instances), over instances
// [first, first + count): the left fold the point-to-point algorithms
// compute too (kernels compute inout = in op inout). A commutative op folds
// into out directly (x_i op out = out op x_i, bit for bit, IEEE + and *
// included); any other op needs x_i copied into a scratch buffer first.
// `own`, when set, is this rank's input, read in place of its slot.
void reduce_slots(const NodeSegment& s, const Reduction& r, void* out, std::int64_t first,
                  std::int64_t count, std::int64_t total, std::uint64_t g, const void* own = nullptr) {
  const std::size_t size = static_cast<std::size_t>(r.type->size());
  const std::size_t bytes = static_cast<std::size_t>(count) * size;
  const std::size_t at = static_cast<std::size_t>(first) * size;
  const std::size_t published = static_cast<std::size_t>(total) * size;
  const std::size_t n = s.at.size();
  if (bytes == 0) return;
  auto x = [&](std::size_t i) {
    return own != nullptr && i == static_cast<std::size_t>(s.rank) ? static_cast<const std::byte*>(own) + at
                                                                  : data_of(*s.at[i], g, published) + at;
  };
  std::memcpy(out, x(0), bytes);
  if (r.op->commutative) {
    for (std::size_t i = 1; i < n; ++i) reduce_packed(r, x(i), out, count);
    return;
  }
  thread_local std::vector<std::byte> scratch;
  scratch.resize(bytes);
  for (std::size_t i = 1; i < n; ++i) {
    std::memcpy(scratch.data(), x(i), bytes);
    reduce_packed(r, out, scratch.data(), count);  // scratch = out op x_i
    std::memcpy(out, scratch.data(), bytes);
  }
}

// Rank i's part of a vector of `count` instances split n ways: [part(i), part(i + 1)).
std::int64_t part(std::int64_t count, std::size_t i, std::size_t n) {
  return static_cast<std::int64_t>(static_cast<std::size_t>(count) * i / n);
}

// Above kNodeAllreduceFoldBytes: each rank folds its 1/n of the vector
// from every slot (a reduce-scatter) and publishes it in the next
// collective's slot, and every rank copies the n folded parts (an
// allgather): each rank reads 2x the vector rather than n times it.
int node_allreduce_split(NodeSegment& s, const Reduction& r, const void* in, void* out,
                         std::int64_t count) {
  const std::size_t size = static_cast<std::size_t>(r.type->size());
  const std::size_t n = s.at.size();
  const auto me = static_cast<std::size_t>(s.rank);
  auto* result = static_cast<std::byte*>(out);
  const std::uint64_t g = ++s.gen;
  if (!publish(s, in, static_cast<std::size_t>(count) * size, g) || !wait_all_published(s, g)) {
    return broken_error(s);
  }
  if (int rc = check_all_published(s, g, static_cast<std::size_t>(count) * size)) {
    finish(s, g);
    return rc;
  }
  // `out` may be `in`: the input is in the slot by now.
  const std::int64_t lo = part(count, me, n), hi = part(count, me + 1, n);
  reduce_slots(s, r, result + lo * size, lo, hi - lo, count, g);
  finish(s, g);
  const std::uint64_t h = ++s.gen;
  if (!publish(s, result + lo * size, static_cast<std::size_t>(hi - lo) * size, h) || !wait_all_published(s, h)) {
    return broken_error(s);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i == me) continue;
    const std::int64_t from = part(count, i, n);
    const std::size_t bytes = static_cast<std::size_t>(part(count, i + 1, n) - from) * size;
    if (bytes != 0) std::memcpy(result + from * size, data_of(*s.at[i], h, bytes), bytes);
  }
  finish(s, h);
  return MPI_SUCCESS;
}

int reduce_one(NodeSegment& s, const Reduction& r, const void* in, void* out, std::int64_t count, int root) {
  const std::uint64_t g = ++s.gen;
  // Nobody reads the root's slot: unless in place (out then takes the
  // fold's first operand before the root's own would be read), its input
  // is folded from where it lies and only its flag is raised.
  const bool own = s.rank == root && in != out;
  if (!publish(s, own ? nullptr : in, own ? 0 : static_cast<std::size_t>(count * r.type->size()), g)) {
    return broken_error(s);
  }
  int rc = MPI_SUCCESS;
  if (s.rank == root) {
    if (!wait_all_published(s, g)) return broken_error(s);
    rc = check_all_published(s, g, static_cast<std::size_t>(count * r.type->size()),
                             own ? static_cast<std::size_t>(root) : SIZE_MAX);
    if (rc == MPI_SUCCESS) reduce_slots(s, r, out, 0, count, count, g, own ? in : nullptr);
  }
  finish(s, g);
  return rc;
}

int allreduce_one(NodeSegment& s, const Reduction& r, const void* in, void* out, std::int64_t count) {
  if (static_cast<std::size_t>(count * r.type->size()) > kNodeAllreduceFoldBytes) {
    return node_allreduce_split(s, r, in, out, count);
  }
  const std::uint64_t g = ++s.gen;
  const auto bytes = static_cast<std::size_t>(count * r.type->size());
  if (!publish(s, in, bytes, g) || !wait_all_published(s, g)) return broken_error(s);
  const int rc = check_all_published(s, g, bytes);
  if (rc == MPI_SUCCESS) reduce_slots(s, r, out, 0, count, count, g);
  finish(s, g);
  return rc;
}

// Runs one(in, out, instances) over slot-sized runs of whole instances.
template <typename One>
int by_chunks(const Reduction& r, const void* in, void* out, std::int64_t count, One one) {
  const auto size = static_cast<std::int64_t>(r.type->size());
  const std::int64_t per = std::max<std::int64_t>(1, static_cast<std::int64_t>(kNodeSlotBytes) / std::max<std::int64_t>(size, 1));
  std::int64_t done = 0;
  do {
    const std::int64_t n = std::min(per, count - done);
    const auto* from = static_cast<const std::byte*>(in) + done * size;
    auto* to = out != nullptr ? static_cast<std::byte*>(out) + done * size : nullptr;
    if (int rc = one(from, to, n)) return rc;
    done += n;
  } while (done < count);
  return MPI_SUCCESS;
}

}  // namespace

std::size_t node_chunk_bytes(std::size_t bytes, std::size_t unit) {
  if (bytes <= kNodeSlotBytes) return bytes;
  if (unit == 0 || unit > kNodeSlotBytes) return 0;
  return kNodeSlotBytes / unit * unit;
}

int node_reduce(Comm& comm, const Reduction& r, const void* in, void* out, std::int64_t count, int root) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  return by_chunks(r, in, out, count, [&](const void* i, void* o, std::int64_t n) { return reduce_one(s, r, i, o, n, root); });
}

int node_allreduce(Comm& comm, const Reduction& r, const void* in, void* out, std::int64_t count) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  return by_chunks(r, in, out, count, [&](const void* i, void* o, std::int64_t n) { return allreduce_one(s, r, i, o, n); });
}

namespace {

// One segment collective: bytes [at, at + len) of every rank's block, the
// blocks `stride` apart in `all`.
// `announced`: the size readers should find (len unless this rank's
// arguments differ from theirs).
int gather_one(NodeSegment& s, const std::byte* mine, std::size_t len, std::byte* all, std::size_t stride,
               std::size_t at, int root, std::size_t announced) {
  const std::uint64_t g = ++s.gen;
  if (!publish(s, mine, len, g, announced)) return broken_error(s);
  FirstError err;
  if (root < 0 || s.rank == root) {
    // Its own block from where it lies (not back out of its slot), while
    // the others publish theirs.
    const auto me = static_cast<std::size_t>(s.rank);
    if (all + at + me * stride != mine) std::memcpy(all + at + me * stride, mine, len);
    if (!wait_all_published(s, g)) return broken_error(s);
    for (std::size_t r = 0; r < s.at.size(); ++r) {
      if (r == me) continue;
      if (int rc = check_published(s, r, g, len)) {
        err.note(rc);
      } else {
        std::memcpy(all + at + r * stride, data_of(*s.at[r], g, len), len);
      }
    }
  }
  finish(s, g);
  return err.rc;
}

}  // namespace

int node_gather(Comm& comm, const void* mine, std::size_t bytes, void* all, int root, std::size_t have) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  if (have == SIZE_MAX) have = bytes;
  const auto* from = static_cast<const std::byte*>(mine);
  // Every chunk runs even after a mismatch: only the readers see it (a
  // gather's root alone), and every rank must take part in as many
  // segment collectives as the others.
  FirstError err;
  for (std::size_t at = 0; at < bytes; at += kNodeSlotBytes) {
    const std::size_t len = std::min(kNodeSlotBytes, bytes - at);
    const std::size_t left = have > at ? have - at : 0;  // a short block shows short, a long one
    const std::size_t announced = at + len == bytes ? left : std::min(left, len);  // in its last chunk
    const int rc = gather_one(s, from + at, len, static_cast<std::byte*>(all), bytes, at, root, announced);
    if (rc == MPIX_ERR_PROC_FAILED) return rc;
    err.note(rc);
  }
  return err.rc;
}

int node_scatter(Comm& comm, const void* all, std::size_t bytes, void* mine, int root) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error(s);
  const std::uint64_t g = ++s.gen;
  const std::size_t total = bytes * s.at.size();
  int rc = MPI_SUCCESS;
  if (s.rank == root) {
    if (!publish(s, all, total, g)) return broken_error(s);
  } else {
    NodeRegion& from = *s.at[static_cast<std::size_t>(root)];
    if (!wait_until(s, [&] { return published(from, g); })) return broken_error(s);
    rc = check_published(s, static_cast<std::size_t>(root), g, total);
    if (rc == MPI_SUCCESS) {
      std::memcpy(mine, data_of(from, g, total) + bytes * static_cast<std::size_t>(s.rank), bytes);
    }
  }
  finish(s, g);
  return rc;
}

void node_collectives_shutdown() {
  std::vector<std::unique_ptr<NodeSegment>> all;
  {
    std::lock_guard lock(g_segments_mutex);
    all.swap(g_segments);
    g_down = true;
  }
  // Every rank is past its last collective once all are here (stopping the
  // library is collective over every task, sessions_comm's members, which
  // is MPI_COMM_WORLD's group and exists without the world model too):
  // nobody reads a segment any more, so
  // each may go. Freeing sends invalidations that peers run in progress, on
  // their progress thread in interrupt mode too, which unmaps what a wait
  // on shared flags would still read: hence a point-to-point barrier here.
  // With a failed rank (lapirun --continue-on-failure) the barrier cannot
  // complete, so the segments are not freed here: a survivor still in its
  // last node collective would find a faster one's segment unmapped under
  // it (a segmentation fault: MPICH's test/mpi/ft/scatter, a reduce on a
  // communicator of survivors before MPI_Finalize). lapi's term, where the
  // survivors meet, releases their memory.
  if (lapi_context().any_peer_failed()) return;
  if (sessions_comm().size() > 1) (void)internal_barrier(sessions_comm());
  for (const auto& s : all) (void)lapi_context().free_registered(s->mine);
}

void node_collectives_start() {
  std::lock_guard lock(g_segments_mutex);
  g_down = false;
}

}  // namespace mpi
