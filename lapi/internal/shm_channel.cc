#include "lapi/internal/shm_channel.hpp"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "lapi/internal/stage_copy_choice.hpp"
#include "runtime/shm_names.hpp"

namespace lapi::internal {

namespace {

// The inbox header's first line; each consumed count follows on a line of
// its own (index = source task).
struct alignas(64) InboxHeader {
  std::uint64_t magic;
  std::uint32_t owner;
  std::uint32_t ntasks;
  std::uint32_t sleep_fence;  // kMembarrierFence: the owner's sleeps run membarrier (header comment)
  std::uint32_t stage_slots;  // 0, or kStageSlots (enable_stages)
  alignas(64) std::uint32_t sleepers;
  // Of the sleepers, application threads asleep in a wait: the ones a quiet
  // frame wakes (ShmChannel::begin_send).
  std::uint32_t waiters_asleep;
  // Counts the owner's polls while it has split or staged sends out: a
  // target that sees it stand still knows the origin left the library
  // (staged_copy.cc, pull_staged_if_quiet_locked).
  alignas(64) std::uint64_t polls;
};
constexpr std::uint32_t kMembarrierFence = 0x6d656d62;  // "memb"
constexpr std::uint64_t kInboxMagic = 0x6c61706973696e62;  // "lapisinb"

// Whether this process can take part in the asymmetric fence: it is
// registered, so other processes' MEMBARRIER_CMD_GLOBAL_EXPEDITED reach its
// threads, and it can issue that command itself. Once per process.
bool membarrier_ready() {
  static const bool ready = [] {
    const long cmds = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    return cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0 &&
           (cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0 &&
           ::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
  }();
  return ready;
}

void* map_shared(int fd, std::size_t bytes, std::size_t offset) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   static_cast<off_t>(offset));
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

std::uint64_t node_identity() {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return std::hash<std::string>{}(std::string(host) + "/" + boot) | 1;  // never 0
}

std::size_t ShmChannel::header_bytes(std::uint32_t ntasks) {
  return shm_page_round(sizeof(InboxHeader) + std::size_t{ntasks} * 64);
}

ShmChannel::~ShmChannel() { close(); }

bool ShmChannel::create(std::uint32_t me, std::uint32_t ntasks, ShmAddress& out,
                        std::string& error) {
  me_ = me;
  ntasks_ = ntasks;
  out_.assign(ntasks, Outbox{});
  static std::atomic<unsigned> serial{0};
  std::random_device rd;
  name_ = fmt::format("/{}{}-{:08x}", lapis::runtime::own_shm_prefix(::getpid()), serial++, rd());
  const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    error = fmt::format("shm_open {}: {}", name_, std::strerror(errno));
    return false;
  }
  named_ = true;
  inbox_bytes_ = header_bytes(ntasks) + std::size_t{ntasks} * ring_bytes();
  // Sparse: only the rings of tasks on this node are ever touched.
  if (::ftruncate(fd, static_cast<off_t>(inbox_bytes_)) != 0) {
    error = fmt::format("ftruncate {} to {} bytes: {}", name_, inbox_bytes_, std::strerror(errno));
    ::close(fd);
    unlink();
    return false;
  }
  inbox_ = map_shared(fd, inbox_bytes_, 0);
  ::close(fd);
  if (inbox_ == nullptr) {
    error = fmt::format("mmap {}: {}", name_, std::strerror(errno));
    unlink();
    return false;
  }
  auto* h = static_cast<InboxHeader*>(inbox_);
  h->magic = kInboxMagic;
  h->owner = me;
  h->ntasks = ntasks;
  membarrier_ = membarrier_allowed_ && membarrier_ready();
  h->sleep_fence = membarrier_ ? kMembarrierFence : 0;
  h->stage_slots = stages_ ? kStageSlots : 0;
  my_sleepers_ = &h->sleepers;
  my_waiters_asleep_ = &h->waiters_asleep;
  my_polls_ = &h->polls;
  out.magic = kShmAddressMagic;
  out.node = node_identity();
  std::snprintf(out.name, sizeof out.name, "%s", name_.c_str());
  return true;
}

bool ShmChannel::attach(std::uint32_t peer, const ShmAddress& addr) {
  if (inbox_ == nullptr || peer >= ntasks_ || peer == me_) return false;
  if (addr.magic != kShmAddressMagic || addr.node != node_identity()) return false;
  // The peer may map our inbox even if we fail to map its: watch its ring
  // in ours either way (a ring nobody writes costs one load per poll).
  auto* mine = static_cast<InboxHeader*>(inbox_);
  const std::size_t hbytes = header_bytes(ntasks_);
  auto* my_rings = static_cast<std::byte*>(inbox_) + hbytes;
  in_.push_back(Inbox{peer, reinterpret_cast<Slot*>(my_rings + std::size_t{peer} * ring_bytes()),
                      &reinterpret_cast<Line*>(mine + 1)[peer].value, 0});
  cells_in_.resize(ntasks_, nullptr);
  cells_in_[peer] = cells_after(in_.back().ring);
  stage_in_.resize(ntasks_);
  if (stages_) stage_in_[peer].area = stage_after(in_.back().ring);
  char name[sizeof addr.name + 1] = {};
  std::memcpy(name, addr.name, sizeof addr.name);
  const int fd = ::shm_open(name, O_RDWR, 0);
  if (fd < 0) return false;  // another IPC namespace, say: UCX will do
  void* header = map_shared(fd, hbytes, 0);
  void* ring = map_shared(fd, ring_bytes(), hbytes + std::size_t{me_} * ring_bytes());
  ::close(fd);
  auto* h = static_cast<InboxHeader*>(header);
  if (header == nullptr || ring == nullptr || h->magic != kInboxMagic || h->owner != peer ||
      h->ntasks != ntasks_ || h->stage_slots != (stages_ ? kStageSlots : 0)) {
    if (header) ::munmap(header, hbytes);
    if (ring) ::munmap(ring, ring_bytes());
    return false;
  }
  Outbox& o = out_[peer];
  o.ring = static_cast<Slot*>(ring);
  o.header_map = header;
  o.header_bytes = hbytes;
  o.sleepers = &h->sleepers;
  o.waiters_asleep = &h->waiters_asleep;
  o.polls = &h->polls;
  o.light_publish = membarrier_ && h->sleep_fence == kMembarrierFence;
  o.consumed = &reinterpret_cast<Line*>(h + 1)[me_].value;
  ++stats_.peers;
  return true;
}

void ShmChannel::unlink() {
  if (named_) ::shm_unlink(name_.c_str());
  named_ = false;
}

void ShmChannel::close() {
  unlink();
  for (Outbox& o : out_) {
    if (o.ring) ::munmap(o.ring, ring_bytes());
    if (o.header_map) ::munmap(o.header_map, o.header_bytes);
    o = Outbox{};
  }
  in_.clear();
  cells_in_.clear();
  stage_in_.clear();
  if (inbox_) ::munmap(inbox_, inbox_bytes_);
  inbox_ = nullptr;
  my_sleepers_ = nullptr;
  my_waiters_asleep_ = nullptr;
}

namespace {

// PREFETCHW (a no-op on x86 processors without it) rather than
// __builtin_prefetch, which emits a read prefetch unless the target
// architecture is told that the instruction exists.
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
#endif
}

// The lines of a frame past its first (up to 2 KiB), claimed for writing
// before the frame is written: the target read them a lap ago, and each
// store that finds a line there waits for it to come back. A byte stored at
// the start of each line, the last line first (the frame's writer
// overwrites them all), has every line on its way at once. PREFETCHW did
// that for a frame's second and third lines, but its fourth still arrived
// late and held back the ticket behind it (MPI frames of 153 B and more:
// the same instructions, 0.03 us more in the fast latency mode, 0.18 in
// the slow one). mpi_latency --bind, libraries alternated 3 times, no
// claim / PREFETCHW / these stores, fast mode (us): 128 B 0.159-0.169 /
// 0.142-0.172 / 0.142-0.145, 160 B 0.182-0.188 / 0.174-0.198 /
// 0.146-0.148, 256 B 0.188-0.191 / 0.183-0.224 / 0.153-0.158, 1 KiB
// 0.290-0.296 / 0.291-0.335 / 0.211-0.212, 2 KiB 0.41-0.46 / 0.41-0.42 /
// 0.35; slow mode (the same stores from the Amsend's copy, an earlier
// build) 160-256 B 0.60-0.67 -> 0.44-0.47, 1 KiB 0.97 -> 0.78. Streams
// gained too (mpi_bw 1 KiB 6.3 -> 7.1-7.3 GB/s).
void claim_lines(void* slot, std::size_t len) {
  auto* first = static_cast<volatile char*>(slot);
  const std::size_t bytes =
      std::min(len + ShmChannel::kSlotHeader, ShmChannel::kPrefetchFrameBytes);
  for (std::size_t at = (bytes - 1) & ~std::size_t{63}; at >= 64; at -= 64) first[at] = 0;
}

}  // namespace

std::byte* ShmChannel::begin_send(std::uint32_t tgt, std::size_t len, ShmSend& why, bool quiet) {
  Outbox& o = out_[tgt];
  if (!quiet && std::atomic_ref<std::uint32_t>(*o.sleepers).load(std::memory_order_relaxed) != 0) {
    ++stats_.peer_asleep;
    why = ShmSend::asleep;
    return nullptr;
  }
  const std::uint64_t span = slots_for(len);
  std::uint64_t at = o.next;
  const std::uint64_t pad = at % kSlots + span > kSlots ? kSlots - at % kSlots : 0;
  if (at + pad + span - o.consumed_seen > kSlots) {
    const std::uint64_t c =
        std::atomic_ref<std::uint64_t>(*o.consumed).load(std::memory_order_acquire);
    // A count beyond what we sent is corrupt: treat the ring as full.
    if (c <= at) o.consumed_seen = c;
    if (at + pad + span - o.consumed_seen > kSlots) {
      why = ShmSend::full;
      return nullptr;
    }
  }
  if (pad != 0) {  // the frame would wrap: skip the ring's tail
    Slot& skip = o.ring[at % kSlots];
    skip.len = kPad;
    std::atomic_ref<std::uint32_t>(skip.ticket).store(ticket_for(at), std::memory_order_release);
    at += pad;
    o.next = at;
  }
  o.writing = at;
  claim_lines(&o.ring[at % kSlots], len);
  return o.ring[at % kSlots].frame;
}

ShmSend ShmChannel::end_send(std::uint32_t tgt, std::size_t len, bool quiet) {
  return publish(tgt, len, static_cast<std::uint32_t>(len), quiet);
}

// Sequentially consistent, or, where the watched task's sleeps run
// membarrier, a release store kept before the load by the compiler alone.
template <typename Word>
inline std::uint32_t ShmChannel::publish_then_watch(const Outbox& o, Word& word, Word value,
                                                    std::uint32_t* watched) {
  if (o.light_publish) [[likely]] {
    std::atomic_ref<Word>(word).store(value, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return std::atomic_ref<std::uint32_t>(*watched).load(std::memory_order_relaxed);
  }
  std::atomic_ref<Word>(word).store(value, std::memory_order_seq_cst);
  return std::atomic_ref<std::uint32_t>(*watched).load(std::memory_order_seq_cst);
}

ShmSend ShmChannel::publish(std::uint32_t tgt, std::size_t len, std::uint32_t stored_len, bool quiet) {
  Outbox& o = out_[tgt];
  const std::uint64_t at = o.writing;
  Slot& slot = o.ring[at % kSlots];
  slot.len = stored_len;
  const std::uint32_t sleepers =
      publish_then_watch(o, slot.ticket, ticket_for(at), quiet ? o.waiters_asleep : o.sleepers);
  o.next = at + slots_for(len);
  // The first line of a slot a few frames ahead: the target read it a lap
  // ago, so a store there would wait for the line to come back from its
  // core. In an 8 B stream that wait was most of MPI_Isend's time (perf);
  // fetched for writing now, the line arrives while this task does other
  // work. Not the next slot itself, which a caught-up target polls.
  prefetch_for_write(&o.ring[(o.next + kWritePrefetchSlots) % kSlots]);
  ++stats_.sent;
  if (sleepers != 0) [[unlikely]] {
    ++stats_.wakes;
    return ShmSend::done_wake;
  }
  return ShmSend::done;
}

ShmSend ShmChannel::send(std::uint32_t tgt, const void* header, std::size_t header_len,
                         const void* data, std::size_t data_len, std::uint32_t claimed_len) {
  const std::size_t len = header_len + data_len;
  ShmSend why;
  std::byte* p = begin_send(tgt, len, why);
  if (p == nullptr) {
    if (why == ShmSend::full) note_ring_full();
    return why;
  }
  std::memcpy(p, header, header_len);
  if (data_len) std::memcpy(p + header_len, data, data_len);
  return publish(tgt, len, claimed_len != 0 ? claimed_len : static_cast<std::uint32_t>(len));
}

void ShmChannel::release(const Inbox& in, std::uint64_t first, std::uint64_t count) {
  for (std::uint64_t i = 1; i < count; ++i) {
    std::atomic_ref<std::uint32_t>(in.ring[(first + i) % kSlots].ticket)
        .store(0, std::memory_order_relaxed);
  }
  std::atomic_ref<std::uint64_t>(*in.consumed).store(first + count, std::memory_order_release);
}

std::byte* ShmChannel::stage_begin(std::uint32_t tgt) {
  Outbox& o = out_[tgt];
  const std::uint64_t at = o.stage_next;
  if (at - o.stage_consumed_seen >= kStageSlots) {
    const std::uint64_t c =
        std::atomic_ref<std::uint64_t>(stage_after(o.ring)->consumed).load(std::memory_order_acquire);
    if (c <= at) o.stage_consumed_seen = c;  // a count beyond what we sent is corrupt: full
    if (at - o.stage_consumed_seen >= kStageSlots) return nullptr;
  }
  return stage_after(o.ring)->slots[at % kStageSlots].data;
}

bool ShmChannel::stage_idle(std::uint32_t tgt) {
  Outbox& o = out_[tgt];
  if (o.stage_consumed_seen != o.stage_next) {
    const std::uint64_t c =
        std::atomic_ref<std::uint64_t>(stage_after(o.ring)->consumed).load(std::memory_order_acquire);
    if (c <= o.stage_next) o.stage_consumed_seen = c;
  }
  return o.stage_consumed_seen == o.stage_next;
}

ShmSend ShmChannel::stage_publish(std::uint32_t tgt, std::uint64_t token, std::uint64_t offset,
                                  std::uint32_t len, std::uint32_t crc, bool streamed) {
  Outbox& o = out_[tgt];
  const std::uint64_t at = o.stage_next++;
  StageSlot& slot = stage_after(o.ring)->slots[at % kStageSlots];
  slot.token = token;
  slot.offset = offset;
  slot.len = len;
  slot.crc = crc;
  slot.streamed = streamed;
  return publish_then_watch<std::uint64_t>(o, slot.ticket, at + 1, o.sleepers) != 0
             ? ShmSend::done_wake
             : ShmSend::done;
}

bool ShmChannel::stage_peek(std::uint32_t src, StageChunk& out) const {
  if (!stages_from(src)) return false;
  const StageIn& in = stage_in_[src];
  StageSlot& slot = in.area->slots[in.next % kStageSlots];
  if (std::atomic_ref<std::uint64_t>(slot.ticket).load(std::memory_order_acquire) != in.next + 1) {
    return false;
  }
  out = StageChunk{slot.token, slot.offset, slot.len, slot.crc, slot.streamed != 0, slot.data};
  return true;
}

ShmSend ShmChannel::stage_release(std::uint32_t src) {
  StageIn& in = stage_in_[src];
  const std::uint64_t taken = in.next++;
  // Once a chunk per 64 KiB: the barrier costs nothing, and a source that
  // found every slot taken and went to sleep is always seen (it rereads
  // the count after announcing its sleep).
  std::atomic_ref<std::uint64_t>(in.area->consumed).store(in.next, std::memory_order_seq_cst);
  if (!reaches(src)) return ShmSend::done;
  const StageSlot& last = in.area->slots[(taken + kStageSlots - 1) % kStageSlots];
  const bool was_full = std::atomic_ref<const std::uint64_t>(last.ticket)
                            .load(std::memory_order_seq_cst) == taken + kStageSlots;
  return was_full && std::atomic_ref<std::uint32_t>(*out_[src].sleepers)
                             .load(std::memory_order_seq_cst) != 0
             ? ShmSend::done_wake
             : ShmSend::done;
}

void ShmChannel::stage_note_copy_out(std::uint32_t src, bool streamed, std::uint64_t ns) {
  std::atomic_ref<std::uint64_t> mean(stage_in_[src].area->copy_out_ns[streamed]);
  std::uint64_t m = mean.load(std::memory_order_relaxed);
  StageCopyChoice::ewma(m, ns);
  mean.store(m, std::memory_order_relaxed);
}

void ShmChannel::stage_copy_out_ns(std::uint32_t tgt, std::uint64_t (&ns)[2]) const {
  const StageArea* area = stage_after(out_[tgt].ring);
  for (int way = 0; way < 2; ++way) {
    ns[way] = std::atomic_ref<const std::uint64_t>(area->copy_out_ns[way])
                  .load(std::memory_order_relaxed);
  }
}

void ShmChannel::stage_note_pulled(std::uint32_t src, std::uint64_t token, std::uint64_t offset) {
  StageArea& area = *stage_in_[src].area;
  std::atomic_ref<std::uint64_t> seq(area.pulled_seq);
  const std::uint64_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  std::atomic_ref<std::uint64_t>(area.pulled_token).store(token, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(area.pulled_to).store(offset, std::memory_order_relaxed);
  seq.store(s + 2, std::memory_order_release);
}

std::uint64_t ShmChannel::stage_pulled(std::uint32_t tgt, std::uint64_t token) const {
  StageArea& area = *stage_after(out_[tgt].ring);
  std::atomic_ref<std::uint64_t> seq(area.pulled_seq);
  const std::uint64_t before = seq.load(std::memory_order_acquire);
  if (before % 2 != 0) return 0;  // being written: the next look sees it
  const std::uint64_t named =
      std::atomic_ref<std::uint64_t>(area.pulled_token).load(std::memory_order_relaxed);
  const std::uint64_t to =
      std::atomic_ref<std::uint64_t>(area.pulled_to).load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (seq.load(std::memory_order_relaxed) != before || named != token) return 0;
  return to;
}

bool ShmChannel::pending() const {
  for (const Inbox& in : in_) {
    Slot& slot = in.ring[in.next % kSlots];
    if (std::atomic_ref<std::uint32_t>(slot.ticket).load(std::memory_order_seq_cst) ==
        ticket_for(in.next)) {
      return true;
    }
  }
  return false;
}

void ShmChannel::sleep_begin(bool waiter) {
  if (my_sleepers_ == nullptr) return;
  if (waiter) std::atomic_ref<std::uint32_t>(*my_waiters_asleep_).fetch_add(1, std::memory_order_seq_cst);
  std::atomic_ref<std::uint32_t>(*my_sleepers_).fetch_add(1, std::memory_order_seq_cst);
  // Every running thread of a registered process passes a full barrier
  // before this returns: a sender's ticket store that its own sleeper
  // check did not follow with a fence is visible to the look at the rings
  // that comes next, or that check comes after the barrier and sees us.
  if (membarrier_) ::syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
}

void ShmChannel::sleep_end(bool waiter) {
  if (my_sleepers_ == nullptr) return;
  std::atomic_ref<std::uint32_t>(*my_sleepers_).fetch_sub(1, std::memory_order_seq_cst);
  if (waiter) std::atomic_ref<std::uint32_t>(*my_waiters_asleep_).fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace lapi::internal
