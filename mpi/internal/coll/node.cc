// Collectives through shared memory on a node (node.hpp).
#include "mpi/internal/coll/node.hpp"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/select.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

// Data up to this size travels in its slot's flag line, after the flag and
// the data's size: one cache line moves per reader.
inline constexpr std::size_t kInlineBytes = 48;

// A large collective writes a flag line too: its depth must cover both.
static_assert(kNodeFlags >= kNodeSlots && kNodeFlags % kNodeSlots == 0);

struct alignas(64) SlotHead {
  std::atomic<std::uint64_t> gen{0};  // the collective whose data the slot holds
  // How many bytes it published (a Bcast chunk: from its start to the
  // message's end): a reader whose count differs (ranks passed different
  // counts or types, an erroneous program) finds the data where it is and
  // reports the mismatch instead of reading past it.
  std::uint64_t bytes = 0;
  std::byte data[kInlineBytes];  // the data, when it fits
};
static_assert(sizeof(SlotHead) == 64);

// One rank's part, mapped by every rank of the communicator.
struct NodeRegion {
  alignas(64) std::atomic<std::uint64_t> done{0};  // last collective whose reads it finished
  SlotHead head[kNodeFlags];
  alignas(64) std::byte slot[kNodeSlots][kNodeSlotBytes];  // data beyond kInlineBytes
};

struct NodeSegment {
  std::uint64_t gen = 0;       // collectives run on the segment so far
  std::uint64_t all_done = 0;  // every rank's done was at least this, last we looked
  int rank = 0;
  NodeRegion* mine = nullptr;       // alloc_registered
  std::vector<NodeRegion*> at;      // by communicator rank, mapped here
  bool oversubscribed = false;      // more ranks on the node than cores
  bool writes_near_all = false;     // every rank writes into every other's memory (node_alltoallv)
  std::vector<lapi::TaskId> tasks;  // by communicator rank
  // A member failed (lapirun --continue-on-failure): its flags will never
  // move again, so every collective on the segment fails from then on.
  bool broken = false;
};

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

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

bool read_enabled() {
  bool enabled = true;
  return read_coll_shm(enabled) == MPI_SUCCESS && enabled;  // MPI_Init refused bad values
}

// Spins until ready(); drives progress every 64 polls
// (this rank's nonblocking collectives and point-to-point keep moving, and
// under MPI_THREAD_MULTIPLE other threads get the MPI lock); yields at once
// on an oversubscribed node, after about 4096 polls otherwise; after 4000
// more it sleeps 20 us between polls (a rank that computes for long does
// not have its peers burn the cores it needs), as mpcpi's waits do.
bool member_failed(NodeSegment& s) {
  if (s.broken) return true;
  lapi::Context& ctx = lapi_context();
  if (!ctx.any_peer_failed()) return false;
  for (lapi::TaskId t : s.tasks) s.broken = s.broken || ctx.peer_failed(t);
  return s.broken;
}

int broken_error() {
  return fail(MPIX_ERR_PROC_FAILED, "a member of the communicator failed (its node collectives cannot complete)");
}

// False when a member failed meanwhile (ready() may then never hold).
template <typename Ready>
[[nodiscard]] bool wait_until(NodeSegment& s, Ready ready) {
  const unsigned spin_limit = s.oversubscribed ? 16 : 4096;
  const unsigned yield_limit = spin_limit + 4000;
  for (unsigned polls = 0; !ready(); ++polls) {
    if ((polls & 63) == 63) {
      (void)engine().progress();
      ApiCall::release_for_idle();
      if (member_failed(s)) return false;
    }
    if (polls < spin_limit) {
      cpu_relax();
    } else if (polls < yield_limit) {
      sched_yield();
    } else {
      const timespec nap{0, 20000};
      nanosleep(&nap, nullptr);
    }
  }
  return true;
}

inline SlotHead& head_of(NodeRegion& r, std::uint64_t g) { return r.head[g % kNodeFlags]; }

inline std::byte* data_of(NodeRegion& r, std::uint64_t g, std::size_t bytes) {
  return bytes <= kInlineBytes ? head_of(r, g).data : r.slot[g % kNodeSlots];
}

bool published(NodeRegion& r, std::uint64_t g) {
  return head_of(r, g).gen.load(std::memory_order_acquire) >= g;
}

[[nodiscard]] bool wait_all_published(NodeSegment& s, std::uint64_t g) {
  return wait_until(s, [&] {
    for (NodeRegion* r : s.at) {
      if (!published(*r, g)) return false;
    }
    return true;
  });
}

// Publishes this rank's `bytes` of collective g, once every rank finished
// reading what its flag line and data slot held before (collective g -
// kNodeFlags, g - kNodeSlots). The others' done words are read only when
// the last look does not tell.
// `announced`: the size readers find in the flag line (SIZE_MAX: `bytes`).
template <typename Fill>
[[nodiscard]] bool publish_with(NodeSegment& s, std::size_t bytes, std::uint64_t g, Fill fill,
                                std::size_t announced = SIZE_MAX) {
  const std::uint64_t depth = bytes <= kInlineBytes ? kNodeFlags : kNodeSlots;
  if (g > depth && s.all_done < g - depth) {
    const std::uint64_t need = g - depth;
    const bool free = wait_until(s, [&] {
      std::uint64_t low = UINT64_MAX;
      for (const NodeRegion* r : s.at) low = std::min(low, r->done.load(std::memory_order_acquire));
      s.all_done = low;
      return low >= need;
    });
    if (!free) return false;
  }
  if (bytes > 0) fill(data_of(*s.mine, g, bytes));
  SlotHead& head = head_of(*s.mine, g);
  head.bytes = announced == SIZE_MAX ? bytes : announced;
  head.gen.store(g, std::memory_order_release);
  return true;
}

[[nodiscard]] bool publish(NodeSegment& s, const void* in, std::size_t bytes, std::uint64_t g,
                           std::size_t announced = SIZE_MAX) {
  return publish_with(s, bytes, g, [&](std::byte* slot) { std::memcpy(slot, in, bytes); }, announced);
}

// Bytes rank r published in collective g (after published(r, g)).
std::size_t published_bytes(NodeRegion& r, std::uint64_t g) { return head_of(r, g).bytes; }

// MPI_SUCCESS when rank `r` published `expected` bytes in collective g,
// else collective_size_mismatch's error (the reader then leaves that
// rank's data alone).
int check_published(const NodeSegment& s, std::size_t r, std::uint64_t g, std::size_t expected) {
  const std::size_t got = published_bytes(*s.at[r], g);
  if (got == expected) return MPI_SUCCESS;
  return collective_size_mismatch(static_cast<int>(r), got, expected);
}

// check_published for every rank but `skip` (SIZE_MAX: none). When sizes
// differ, every rank that reads all slots sees a mismatch, so they all
// stop at the same collective.
int check_all_published(const NodeSegment& s, std::uint64_t g, std::size_t expected,
                        std::size_t skip = SIZE_MAX) {
  for (std::size_t r = 0; r < s.at.size(); ++r) {
    if (r == skip) continue;
    if (int rc = check_published(s, r, g, expected)) return rc;
  }
  return MPI_SUCCESS;
}

// The first error of several steps (each returns MPI_SUCCESS or a class).
struct FirstError {
  int rc = MPI_SUCCESS;
  void note(int code) { rc = rc == MPI_SUCCESS ? code : rc; }
};

void finish(NodeSegment& s, std::uint64_t g) {
  s.mine->done.store(g, std::memory_order_release);
  observe_handler_writes();  // see runtime.hpp
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
  if (member_failed(s)) return broken_error();
  const std::uint64_t g = ++s.gen;
  if (!publish(s, nullptr, 0, g) || !wait_all_published(s, g)) return broken_error();
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
    if (!wait_until(s, [&] { return published(from, g); })) return broken_error();
    if (done == 0) total = published_bytes(from, g);
    const std::size_t chunk = std::min(kNodeSlotBytes, total - done);
    if (done < bytes) std::memcpy(data + done, data_of(from, g, chunk), std::min(chunk, bytes - done));
    finish(s, g);
    done += chunk;
  } while (done < total);
  return total == bytes ? MPI_SUCCESS : collective_size_mismatch(root, total, bytes);
}

}  // namespace

int node_bcast(Comm& comm, void* data, std::size_t bytes, int root) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error();
  auto* at = static_cast<std::byte*>(data);
  if (s.rank != root) return bcast_from_root(s, at, bytes, root);
  for (std::size_t done = 0; done < bytes; done += kNodeSlotBytes) {
    const std::uint64_t g = ++s.gen;
    if (!publish(s, at + done, std::min(kNodeSlotBytes, bytes - done), g, bytes - done)) return broken_error();
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
    return broken_error();
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
    return broken_error();
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
    return broken_error();
  }
  int rc = MPI_SUCCESS;
  if (s.rank == root) {
    if (!wait_all_published(s, g)) return broken_error();
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
  if (!publish(s, in, bytes, g) || !wait_all_published(s, g)) return broken_error();
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
  if (member_failed(s)) return broken_error();
  return by_chunks(r, in, out, count, [&](const void* i, void* o, std::int64_t n) { return reduce_one(s, r, i, o, n, root); });
}

int node_allreduce(Comm& comm, const Reduction& r, const void* in, void* out, std::int64_t count) {
  NodeSegment& s = *comm.node;
  if (member_failed(s)) return broken_error();
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
  if (!publish(s, mine, len, g, announced)) return broken_error();
  FirstError err;
  if (root < 0 || s.rank == root) {
    // Its own block from where it lies (not back out of its slot), while
    // the others publish theirs.
    const auto me = static_cast<std::size_t>(s.rank);
    if (all + at + me * stride != mine) std::memcpy(all + at + me * stride, mine, len);
    if (!wait_all_published(s, g)) return broken_error();
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
  if (member_failed(s)) return broken_error();
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
  if (member_failed(s)) return broken_error();
  const std::uint64_t g = ++s.gen;
  const std::size_t total = bytes * s.at.size();
  int rc = MPI_SUCCESS;
  if (s.rank == root) {
    if (!publish(s, all, total, g)) return broken_error();
  } else {
    NodeRegion& from = *s.at[static_cast<std::size_t>(root)];
    if (!wait_until(s, [&] { return published(from, g); })) return broken_error();
    rc = check_published(s, static_cast<std::size_t>(root), g, total);
    if (rc == MPI_SUCCESS) {
      std::memcpy(mine, data_of(from, g, total) + bytes * static_cast<std::size_t>(s.rank), bytes);
    }
  }
  finish(s, g);
  return rc;
}

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
  if (!published) return broken_error();
  // Its own block while the others publish theirs.
  if (in != out) std::memcpy(in + me * stride + at, out + me * stride + at, len);
  if (!wait_all_published(s, g)) return broken_error();
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
  if (member_failed(s)) return broken_error();
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
  if (member_failed(s)) return broken_error();
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
  if (!published) return broken_error();
  FirstError err;
  // Its own piece while the others publish theirs.
  if (const std::size_t own = std::min(out[me].bytes, in[me].bytes); own > 0) std::memcpy(in[me].at, out[me].at, own);
  if (out[me].bytes > in[me].bytes) err.note(direct_truncated(out[me].bytes, in[me].bytes));
  if (!wait_all_published(s, g)) return broken_error();
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

void node_collectives_shutdown() {
  std::vector<std::unique_ptr<NodeSegment>> all;
  {
    std::lock_guard lock(g_segments_mutex);
    all.swap(g_segments);
    g_down = true;
  }
  // Every rank is past its last collective once all are here (MPI_Finalize
  // is collective over MPI_COMM_WORLD): nobody reads a segment any more, so
  // each may go. Freeing sends invalidations that peers run in progress, on
  // their progress thread in interrupt mode too, which unmaps what a wait
  // on shared flags would still read: hence a point-to-point barrier here.
  // With a failed rank (lapirun --continue-on-failure) the barrier cannot
  // complete; lapi's term then ends the survivors together instead.
  if (CommPtr* world = state().comms.find(MPI_COMM_WORLD);
      world != nullptr && (*world)->size() > 1 && !lapi_context().any_peer_failed()) {
    (void)internal_barrier(**world);
  }
  for (const auto& s : all) (void)lapi_context().free_registered(s->mine);
}

}  // namespace mpi
