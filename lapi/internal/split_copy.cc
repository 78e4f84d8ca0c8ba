// Split copy: a large Amsend to a task on this node is copied by both
// tasks at once, with cross-memory attach (process_vm_readv/writev).
//
// Why: UCX's rendezvous over shared memory is a single-copy pull, so one
// core moves every byte and a large message runs at one core's copy rate
// (about 10-14 GB/s here, as fast as Open MPI's and MPICH's single copy).
// Two cores copying parts of the same message move it about twice as fast.
//
//   origin                                   target
//   Amsend frame: kSplitData + SplitWire ->  header handler names the buffer
//                                       <-  split_go (buffer, claim cell)
//   claims parts and writes them             claims parts and reads them
//   split_last, if it copied the last   ->  lands (completion handler, target
//                                       <-  split_done   counter, ack)
//   origin counter: buffer free again
//
// The parts are handed out by a claim cell in the target's inbox (after
// the origin's ring): both tasks take the next part with a compare-and-swap
// that also checks the cell's generation, so each part is copied exactly
// once, and a late or stale split_go finds nothing left to claim. The
// target never waits for the origin to start: if the origin is not
// calling the library, the target copies every part itself, so the
// message completes as a UCX rendezvous would. Whoever finishes the last
// part completes the message (the origin by sending split_last).
//
// split_go and split_done travel as control frames in the origin's ring
// from the target when there is room (a ring frame's latency, not UCX's:
// split_done is on every split message's path), else through UCX. Taking
// two ways, a split_go may come after its split_done; the origin drops it
// (SplitCopyState::recently_done). A split_done with a completion ack behind it
// (through UCX, which must not overtake it) or reporting a failure takes
// UCX.
//
// Records travel as SlotTable cookies, so a forged or stale message is
// refused rather than followed. A task reaches a peer this way only if it
// could read a probe word from the peer's memory at init (same node, and
// the kernel allows cross-memory attach between them).

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "lapi/internal/amsend_frame.hpp"
#include "lapi/internal/cma.hpp"
#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// Part size: at least 64 KiB (each part costs a system call and a
// compare-and-swap), and at most 8 parts per message: windowed bandwidth
// at 1-4 MiB measured 17-20 GB/s with 16 parts, 20-24 GB/s with 4 or 8,
// and 8 keep a late-starting origin's share balanced.
std::size_t part_bytes(std::size_t len) {
  constexpr std::size_t kMinPart = 64 * 1024;
  constexpr std::size_t kPage = 4096;
  const std::size_t eighth = (len / 8 + kPage - 1) / kPage * kPage;
  return std::max(kMinPart, eighth);
}

// Claims parts from `cell` (generation `gen`, `parts` in all) and copies
// each claim with copy(first, count) until none is left. Returns whether
// this side finished the last part; `err` keeps the first copy error.
// `alone_takes_rest`: once this side has copied a part and nobody else has
// claimed one, it claims all the rest at once (one system call instead of
// one per part: the other side is busy elsewhere, or not in the library).
template <typename Copy>
bool copy_parts(ShmChannel::SplitCell& cell, std::uint32_t gen, std::uint32_t parts,
                bool alone_takes_rest, Copy copy, int& err) {
  std::atomic_ref<std::uint64_t> claim(cell.claim);
  std::atomic_ref<std::uint64_t> done(cell.done);
  bool last = false;
  std::uint32_t mine = 0;
  for (;;) {
    std::uint64_t c = claim.load(std::memory_order_acquire);
    std::uint32_t count;
    do {
      const auto next = static_cast<std::uint32_t>(c);
      if (c >> 32 != gen || next >= parts) return last;
      count = alone_takes_rest && mine != 0 && next == mine ? parts - next : 1;
    } while (!claim.compare_exchange_weak(c, c + count, std::memory_order_acq_rel,
                                          std::memory_order_acquire));
    const int e = copy(static_cast<std::uint32_t>(c), count);
    if (e != 0 && err == 0) err = e;
    mine += count;
    const std::uint64_t before =
        done.fetch_add(count + (e != 0 ? ShmChannel::kSplitCellError : 0), std::memory_order_acq_rel);
    last = static_cast<std::uint32_t>(before) + count == parts;
  }
}

// What a cross-memory read of 16 KiB costs against a memcpy of it, both
// timed on this task's own memory (best of 16: the first calls fault pages
// in, and the machine may be busy elsewhere). 0: the read failed.
double cma_copy_ratio() {
  constexpr std::size_t kBytes = 16 * 1024;
  constexpr int kTries = 16;
  constexpr int kCopiesPerTry = 8;  // a copy alone is near the clock's resolution
  std::vector<std::byte> from(kBytes, std::byte{1});
  std::vector<std::byte> to(kBytes);
  const auto me = static_cast<std::uint32_t>(getpid());
  using Clock = std::chrono::steady_clock;
  Clock::duration read = Clock::duration::max();
  Clock::duration copies = Clock::duration::max();
  for (int i = 0; i < kTries; ++i) {
    const auto t0 = Clock::now();
    if (cma_copy(me, to.data(), reinterpret_cast<std::uint64_t>(from.data()), kBytes, false) != 0)
      return 0;
    const auto t1 = Clock::now();
    for (int c = 0; c < kCopiesPerTry; ++c) {
      std::memcpy(to.data(), from.data(), kBytes);
      asm volatile("" : : "r"(to.data()) : "memory");  // each copy happens
    }
    const auto t2 = Clock::now();
    read = std::min(read, t1 - t0);
    copies = std::min(copies, t2 - t1);
  }
  if (copies.count() <= 0) return 0;
  return static_cast<double>(read.count()) * kCopiesPerTry / static_cast<double>(copies.count());
}

}  // namespace

// Split copy below the eager limit replaces UCX's eager path, which copies
// twice (into shared memory and out of it), by one cross-memory read: that
// pays where the read is cheap against a copy.
// - On the machine where split copy won from 16 KiB (mpi_latency 16 KiB 2.3
//   against 4.3 us through UCX), the split-copied ping-pong leaves at most
//   about 1.8 us for the read, while UCX's two copies took 4 us.
// - On an AMD Zen 5 VM the read costs 1.8-2.1 us, about 15 memcpys of it,
//   and UCX's path 0.77 us one way: split copy from 16 KiB was 3.3x slower
//   in latency and 4x in bandwidth there (LAPIS_SPLIT_MIN=131072 against the
//   default, alternated), and from the eager limit up it wins again.
// The default bound, 8 copies, lies between the two; the first machine's own
// ratio was never measured, so LAPIS_VERBOSE prints it.
void Context::Impl::raise_split_min_if_cma_slow() {
  if (!config_.split_copy || !config_.split_min_auto) return;
  if (split_threshold() >= std::max(kSplitMin, config_.eager_limit)) return;
  if (std::none_of(peers_.begin(), peers_.end(), [](const Peer& p) { return p.split; })) return;
  split_.cma_copy_ratio = cma_copy_ratio();
  if (split_.cma_copy_ratio > config_.split_cma_ratio_max || split_.cma_copy_ratio == 0)
    config_.split_min = 0;  // the eager limit (split_threshold)
}

SplitAddress Context::Impl::split_address() const {
  SplitAddress a;
  if (config_.split_copy) {
    a.pid = static_cast<std::uint32_t>(getpid());
    a.probe = reinterpret_cast<std::uint64_t>(&split_.probe);
  }
  return a;
}

void Context::Impl::probe_split_peer(TaskId peer, const SplitAddress& addr) {
  if (!config_.split_copy || addr.pid == 0 || !shm_.reaches(peer)) return;
  std::uint64_t word = 0;
  if (cma_copy(addr.pid, &word, addr.probe, sizeof word, false) != 0 || word != kSplitProbe) return;
  peers_[peer].split_pid = addr.pid;
  auto& cells = peers_[peer].split_free_cells;
  for (std::uint32_t c = ShmChannel::kSplitCells; c-- > 0;) cells.push_back(c);
}

SplitSend* Context::Impl::new_split_send_locked(TaskId tgt, const void* data, std::size_t data_len,
                                              const Counters& counters, Counters& later) {
  auto* op = new SplitSend{tgt, counters.origin, {}};
  op->wire = SplitWire{reinterpret_cast<std::uint64_t>(data), data_len, split_.sends.insert(op)};
  peers_[tgt].split_last_out = op->wire.id;
  // The origin counter moves once every part is copied, not when the frame is sent.
  later = counters;
  later.origin = nullptr;
  return op;
}

RingSend Context::Impl::split_frame_to_ring_locked(TaskId tgt, HandlerId handler,
                                                   std::uint16_t flags, const void* uhdr,
                                                   std::size_t uhdr_len, SplitSend& op,
                                                   const Counters& later) {
  const RingSend ring =
      (flags & kChecksummed) != 0
          ? amsend_shm_locked<true>(tgt, handler, flags, uhdr, uhdr_len, &op.wire, sizeof op.wire,
                                    later)
          : amsend_shm_locked<false>(tgt, handler, flags, uhdr, uhdr_len, &op.wire,
                                     sizeof op.wire, later);
  if (ring == RingSend::full) shm_.note_ring_full();
  return ring;
}

void Context::Impl::drop_unsent_split_locked(SplitSend* op) {
  (void)split_.sends.take(op->wire.id);
  delete op;
}

Status Context::Impl::amsend_split_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                          std::size_t uhdr_len, const void* data,
                                          std::size_t data_len, const Counters& counters) {
  Counters later;
  SplitSend* op = new_split_send_locked(tgt, data, data_len, counters, later);
  // LAPIS_CHECKSUM: the frame carries the data's CRC; the target checks
  // what landed against it (check_split_locked).
  std::uint16_t flags = kSplitData;
  if (integrity_.on) [[unlikely]] {
    flags |= kChecksummed;
    integrity_.next_split_crc = crc32c_extend(0, data, data_len);
  }
  // A full ring sends it through UCX: split frames do not queue (ring_backlog.hpp).
  const bool in_ring = uhdr_len <= kPackedUhdrLimit &&
                       split_frame_to_ring_locked(tgt, handler, flags, uhdr, uhdr_len, *op, later) ==
                           RingSend::sent;
  const Status s = in_ring ? Status(Errc::success)
                           : amsend_ucx_locked(tgt, handler, flags, uhdr, uhdr_len, &op->wire,
                                               sizeof op->wire, later);
  if (s.ok()) {
    ++split_.sent;
  } else {
    drop_unsent_split_locked(op);
  }
  return s;
}

void Context::Impl::land_split_locked(TaskId src, const SplitWire& split, void* buffer,
                                      const CompletionJob& job, std::uint32_t split_crc) {
  ++split_.received;
  note_split_in_locked(src);
  // Every path runs the checks held back (finish_split_recv_locked) before
  // this one lands, so landings keep their order; one that hands the origin
  // parts to copy runs them only once its split_go is out.
  if (split.len == 0 || buffer == nullptr) {  // nothing to move, or discarded
    check_held_splits_locked();
    release_split_locked(src, split.id, Errc::success, job.cookie == 0);
    landed_locked(job);
    return;
  }
  if (!split_reaches(src)) {
    check_held_splits_locked();
    // Only a task that reached our memory sends a split Amsend; if we
    // cannot reach its memory back, the kernel treats us differently.
    (void)refuse_amsend_locked(false, src, Errc::no_connectivity, job.cookie,
                               fmt::format("split amsend from task {}, whose memory this task "
                                           "cannot read",
                                           src),
                               split.id);
    return;
  }
  auto* dst = static_cast<std::byte*>(buffer);
  const std::size_t part = part_bytes(split.len);
  const auto parts = static_cast<std::uint32_t>((split.len + part - 1) / part);
  auto* rec = new SplitRecv{src, job, split.id, SplitRecv::kNoCell, parts, Errc::success, {},
                            buffer, split.addr, split.len, split_crc};
  const std::uint64_t token = split_.recvs.insert(rec);
  int err = 0;
  bool last = true;  // unless the origin may still be copying a part
  auto& free_cells = peers_[src].split_free_cells;
  split_.end_poll = true;
  if (parts > 1 && !free_cells.empty()) {
    // Hand the origin a cell to claim parts from, then copy alongside it.
    rec->cell = free_cells.back();
    free_cells.pop_back();
    ShmChannel::SplitCell& cell = shm_.cells_from(src)[rec->cell];
    const auto gen = static_cast<std::uint32_t>(
        (std::atomic_ref<std::uint64_t>(cell.claim).load(std::memory_order_relaxed) >> 32) + 1);
    std::atomic_ref<std::uint64_t>(cell.done).store(0, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(cell.claim).store(std::uint64_t{gen} << 32,
                                                     std::memory_order_release);
    const SplitGoWire go{me_, rec->cell, split.id, token, reinterpret_cast<std::uint64_t>(buffer),
                         part, parts, gen};
    send_control_near_locked(src, Proto::split_go, &go, sizeof go);
    check_held_splits_locked();  // while the origin starts copying
    last = copy_parts(cell, gen, parts, true, [&](std::uint32_t k, std::uint32_t count) {
      const std::size_t off = std::size_t{k} * part;
      return cma_copy(peers_[src].split_pid, dst + off, split.addr + off,
                      std::min(part * count, split.len - off), false);
    }, err);
  } else {
    // One part, or no cell free: all of it here.
    check_held_splits_locked();
    err = cma_copy(peers_[src].split_pid, dst, split.addr, split.len, false);
  }
  if (err != 0) {
    rec->error = Errc::transport;
    rec->detail = fmt::format("split copy: reading task {}'s amsend data: {}", src, std::strerror(err));
  }
  if (last) finish_split_recv_locked(token);  // otherwise the origin says so (split_last)
}

bool Context::Impl::split_copy_again_locked(TaskId src, void* buffer, std::uint64_t addr,
                                            std::size_t len) {
  return cma_copy(peers_[src].split_pid, buffer, addr, len, false) == 0;
}

Status Context::Impl::write_near(TaskId tgt, std::uint64_t tgt_addr, const void* data,
                                 std::size_t len) {
  if (tgt >= npeers()) return fail(Errc::tgt, "write_near: tgt={} is not a task (0..{})", tgt, npeers() - 1);
  if (!writes_near(tgt)) {
    return fail(Errc::no_connectivity, "write_near: task {} is not one this task writes into directly{}",
                tgt, integrity_.on ? " (LAPIS_CHECKSUM is on)" : "");
  }
  if (len == 0) return Errc::success;
  if (data == nullptr) return fail(Errc::org_addr_null, "write_near: data is null but len={}", len);
  if (tgt_addr == 0) return fail(Errc::tgt_addr_null, "write_near: tgt_addr is null but len={}", len);
  // An announced receive buffer: ProcMem may write it (cma.hpp). Its copy
  // takes a non-const buffer type only; it does not modify it.
  Peer& peer = peers_[tgt];
  if (int e = peer.proc_mem.copy(peer.split_pid, const_cast<void*>(data), tgt_addr, len, true);
      e != 0) {
    return fail(Errc::transport, "write_near: {} bytes into task {} at {:#x}: {}", len, tgt, tgt_addr,
                std::strerror(e));
  }
  return Errc::success;
}

void Context::Impl::release_split_locked(TaskId src, std::uint64_t id, Errc code, bool near) {
  const SplitDoneWire done{me_, static_cast<std::int32_t>(code), id};
  if (near) {
    send_control_near_locked(src, Proto::split_done, &done, sizeof done);
  } else {
    send_control_locked(src, Proto::split_done, &done, sizeof done);
  }
}

// The kinds send_control_near_locked is given, queued for
// run_ring_controls_locked; a control frame of any other shape is refused
// like a malformed Amsend.
void Context::Impl::accept_shm_control_locked(TaskId src, const std::byte* frame,
                                              std::size_t len) {
  if (auto done = ring_control<SplitDoneWire>(frame, len, Proto::split_done, src)) {
    split_.ring_controls.emplace_back(*done);
  } else if (auto go = ring_control<SplitGoWire>(frame, len, Proto::split_go, src)) {
    split_.ring_controls.emplace_back(*go);
  } else {
    AmsendWire w;
    std::memcpy(&w, frame, sizeof w);  // a control frame holds one
    (void)refuse_amsend_locked(false, src, Errc::hdr_len, 0,
                               fmt::format("shared-memory control frame of {} bytes from task {} "
                                           "(kind {}, flags {:#x}) is not one the ring carries",
                                           len, src, w.handler, w.flags));
    return;
  }
  split_.end_poll = true;
}

void Context::Impl::run_ring_controls_locked() {
  for (const auto& msg : split_.ring_controls) {
    if (const auto* go = std::get_if<SplitGoWire>(&msg)) {
      on_split_go_locked(*go);
    } else {
      on_split_done_locked(std::get<SplitDoneWire>(msg));
    }
  }
  split_.ring_controls.clear();
}

void Context::Impl::on_split_go_locked(const SplitGoWire& msg) {
  SplitSend** found = split_.sends.find(msg.id);
  ShmChannel::SplitCell* cells = shm_.cells_to(msg.src);
  if (found == nullptr && split_.recently_done.has(msg.id)) return;  // came after its split_done
  const bool sane = found != nullptr && (*found)->tgt == msg.src && !(*found)->staged &&
                    cells != nullptr &&
                    split_reaches(msg.src) && msg.cell < ShmChannel::kSplitCells &&
                    msg.buffer != 0 && msg.part_bytes != 0 &&
                    msg.parts == ((*found)->wire.len + msg.part_bytes - 1) / msg.part_bytes;
  if (!sane) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_go names no split amsend of this task to task {} "
                              "(record {:#x}, cell {}, {} parts of {} bytes)",
                              msg.src, msg.id, msg.cell, msg.parts, msg.part_bytes));
    return;
  }
  // Frames wait in our own rings (traffic both ways, as in a bi-directional
  // stream): our core has copying of its own to do, and helping here would
  // only add part-sized system calls. The target copies every part then.
  if (shm_.pending()) return;
  const SplitSend& op = **found;
  int err = 0;
  const bool last = copy_parts(cells[msg.cell], msg.generation, msg.parts, false,
                               [&](std::uint32_t k, std::uint32_t) {
    ++split_.parts_helped;
    const std::size_t off = std::size_t{k} * msg.part_bytes;
    return cma_copy(peers_[msg.src].split_pid, reinterpret_cast<std::byte*>(op.wire.addr + off),
                    msg.buffer + off, std::min<std::size_t>(msg.part_bytes, op.wire.len - off), true);
  }, err);
  if (err != 0) send_errors_++;  // the target reports it, with the Amsend's cookie
  if (last) {
    const SplitDoneWire done{me_, 0, msg.token};
    send_control_locked(msg.src, Proto::split_last, &done, sizeof done);
  }
}

void Context::Impl::on_split_last_locked(const SplitDoneWire& msg) {
  SplitRecv** found = split_.recvs.find(msg.record);
  const SplitRecv* rec = found != nullptr ? *found : nullptr;
  if (rec == nullptr || rec->src != msg.src || rec->cell == SplitRecv::kNoCell ||
      static_cast<std::uint32_t>(std::atomic_ref<std::uint64_t>(shm_.cells_from(msg.src)[rec->cell].done)
                                     .load(std::memory_order_acquire)) != rec->parts) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_last names no finished split amsend from task {} here "
                              "(record {:#x})",
                              msg.src, msg.record));
    return;
  }
  finish_split_recv_locked(msg.record);
}

void Context::Impl::on_split_done_locked(const SplitDoneWire& msg) {
  const std::unique_ptr<SplitSend> op = split_.take_send(msg.record, msg.src);
  if (!op) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_done names no split amsend of this task to task {} "
                              "(record {:#x})",
                              msg.src, msg.record));
    return;
  }
  split_.recently_done.note(msg.record);
  if (op->striped) links_.end_send(msg.record);
  if (op->staged) forget_staged_send_locked(*op);  // a target that failed it before the end
  // A failure was reported by the target (a fault with the Amsend's cookie).
  if (op->origin) bump(*op->origin);
}

// The target failed (peer_failures.cc): no split_done will come. Nobody
// reads the origin buffer any more, so it is free: the origin counter moves,
// as after split_done (striped ones too: drop_peer forgets only the links' side).
void Context::Impl::drop_split_sends_to_locked(TaskId task) {
  std::vector<Counter*> freed;
  split_.sends.erase_if([&](SplitSend* op) {
    if (op->tgt != task) return false;
    if (op->origin) freed.push_back(op->origin);
    delete op;
    return true;
  });
  for (Counter* c : freed) bump(*c);
}

void Context::Impl::finish_split_recv_locked(std::uint64_t token) {
  std::unique_ptr<SplitRecv> rec(split_.recvs.take(token).value_or(nullptr));
  if (!rec) return;
  if (rec->cell != SplitRecv::kNoCell) {
    const std::uint64_t done = std::atomic_ref<std::uint64_t>(shm_.cells_from(rec->src)[rec->cell].done)
                                   .load(std::memory_order_acquire);
    if (done >= ShmChannel::kSplitCellError && rec->error == Errc::success) {
      rec->error = Errc::transport;
      rec->detail = fmt::format("split copy: task {} could not write its parts of the amsend", rec->src);
    }
    peers_[rec->src].split_free_cells.push_back(rec->cell);
  }
  // LAPIS_CHECKSUM: the data is checked (and mended) while the origin still
  // holds its buffer, before split_done frees it. The check waits for the
  // next split Amsend's split_go, so that the origin copies that one's parts
  // while this task checks (1 MiB stream: the check alone took the rate from
  // 0.84x to 0.63x of unchecked); anything else that lands, or a poll that
  // finds nothing more, runs it first (check_held_splits_locked's callers).
  // Polling mode only: in interrupt mode two alternated runs with the check
  // held gave 1 MiB 0.46-0.47x of unchecked against 0.55-0.56x, though runs
  // of identical interrupt-mode code spread as wide (256 KiB 0.43-0.58x), so
  // there it stays at once until measured better.
  if (integrity_.on && config_.mode == ProgressMode::polling && rec->error == Errc::success) {
    split_.held_checks.push_back(std::move(rec));
    split_.held_this_poll = true;
    return;
  }
  complete_split_recv_locked(*rec);
}

void Context::Impl::check_held_splits_locked() {
  if (split_.held_checks.empty()) return;
  // Moved out first: completing one may run a handler that polls again.
  std::vector<std::unique_ptr<SplitRecv>> held = std::move(split_.held_checks);
  split_.held_checks.clear();
  for (const auto& rec : held) complete_split_recv_locked(*rec);
}

void Context::Impl::complete_split_recv_locked(SplitRecv& rec) {
  if (integrity_.on && rec.error == Errc::success &&
      !checked_.check_split_locked(rec.src, rec.buffer, rec.addr, rec.len, rec.crc, rec.detail)) {
    rec.error = Errc::data_corrupt;
  }
  settle_split_recv_locked(rec);
}

void Context::Impl::settle_split_recv_locked(SplitRecv& rec) {
  release_split_locked(rec.src, rec.id, rec.error, rec.error == Errc::success && rec.job.cookie == 0);
  if (rec.error == Errc::success) {
    landed_locked(rec.job);
    return;
  }
  // Like a failed rendezvous pull: reported to the origin, done for its fence.
  refuse_locked(rec.src, rec.error, rec.job.cookie, rec.detail);
  CompletionJob nothing{};
  nothing.src = rec.src;
  landed_locked(nothing);
}

}  // namespace lapi
