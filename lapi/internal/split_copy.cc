// Split copy: a large Amsend to a task on this node is copied by both
// tasks at once, with cross-memory attach (process_vm_readv/writev).
//
// Why: UCX's rendezvous over shared memory is a single-copy pull, so one
// core moves every byte and a large message runs at one core's copy rate
// (about 10-14 GB/s here, as fast as Open MPI's and MPICH's single copy).
// Two cores copying two halves of the same message move it nearly twice as
// fast. The protocol, all of it under the engine lock:
//
//   origin                                  target
//   Amsend frame, kSplitData, SplitWire ->  header handler names the buffer
//                                      <-  split_go (buffer, origin's share)
//   writes data[0, push) to the buffer     reads data[push, len) itself
//   split_pushed                       ->  <- split_pulled
//   origin counter once pushed and         lands (completion handler, target
//   pulled: its buffer is free again       counter, ack) once both parts are in
//
// Both records are named by SlotTable cookies, so a forged or stale message
// is refused rather than followed. A task reaches a peer this way only if it
// could read a probe word from the peer's memory at init (same node, and
// the kernel allows cross-memory attach between them).

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// Copies len bytes between here and task `pid`'s memory at `remote`
// (write: from here to there), resuming after a partial transfer. Returns 0
// or an errno value.
int cma_copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len, bool write) {
  auto* here = static_cast<std::byte*>(local);
  while (len > 0) {
    iovec l{here, len};
    iovec r{reinterpret_cast<void*>(remote), len};
    const ssize_t n = write ? process_vm_writev(static_cast<pid_t>(pid), &l, 1, &r, 1, 0)
                            : process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EFAULT;
    here += n;
    remote += static_cast<std::uint64_t>(n);
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

// The origin's share: the first half, whole pages when there are several.
std::size_t origin_share(std::size_t len) {
  constexpr std::size_t kPage = 4096;
  const std::size_t half = len / 2;
  return len >= 4 * kPage ? half - half % kPage : half;
}

}  // namespace

SplitAddress Context::Impl::split_address() const {
  SplitAddress a;
  if (config_.split_copy) {
    a.pid = static_cast<std::uint32_t>(getpid());
    a.probe = reinterpret_cast<std::uint64_t>(&split_probe_);
  }
  return a;
}

void Context::Impl::probe_split_peer(TaskId peer, const SplitAddress& addr) {
  if (!config_.split_copy || addr.pid == 0 || !shm_.reaches(peer)) return;
  std::uint64_t word = 0;
  if (cma_copy(addr.pid, &word, addr.probe, sizeof word, false) == 0 && word == kSplitProbe) {
    split_pid_[peer] = addr.pid;
  }
}

Status Context::Impl::amsend_split_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                          std::size_t uhdr_len, const void* data,
                                          std::size_t data_len, const Counters& counters) {
  auto* op = new SplitSend{tgt, static_cast<const std::byte*>(data), data_len, counters.origin, {}, false, false};
  const std::uint64_t id = split_sends_.insert(op);
  op->wire = SplitWire{reinterpret_cast<std::uint64_t>(data), data_len, id};
  // The origin counter moves once both copies are done, not when the frame is sent.
  Counters later = counters;
  later.origin = nullptr;
  ++split_sent_;
  if (uhdr_len <= kPackedUhdrLimit &&
      amsend_shm_locked(tgt, handler, kSplitData, uhdr, uhdr_len, &op->wire, sizeof op->wire, later)) {
    return Errc::success;
  }
  Status s = amsend_ucx_locked(tgt, handler, kSplitData, uhdr, uhdr_len, &op->wire,
                               sizeof op->wire, later);
  if (!s.ok()) {
    (void)split_sends_.take(id);
    delete op;
    --split_sent_;
  }
  return s;
}

void Context::Impl::land_split_locked(TaskId src, const SplitWire& split, void* buffer,
                                      const CompletionJob& job) {
  ++split_received_;
  if (split.len == 0 || buffer == nullptr) {  // nothing to move, or discarded
    release_split_locked(src, split.id);
    landed_locked(job);
    return;
  }
  auto* rec = new SplitRecv{src, job, false, false, Errc::success, {}};
  const std::uint64_t token = split_recvs_.insert(rec);
  // The origin pushes the head; we pull the tail, unless we cannot read its
  // memory (then it pushes everything).
  const std::size_t push = split_reaches(src) ? origin_share(split.len) : split.len;
  rec->pushed = push == 0;
  const SplitGoWire go{me_, push == split.len ? kSplitPullDone : 0u, split.id, token,
                       reinterpret_cast<std::uint64_t>(buffer), push};
  send_control_locked(src, Proto::split_go, &go, sizeof go);
  if (push < split.len) {
    const int err = cma_copy(split_pid_[src], static_cast<std::byte*>(buffer) + push,
                             split.addr + push, split.len - push, false);
    if (err != 0) {
      rec->error = Errc::transport;
      rec->detail = fmt::format("split copy: reading {} bytes of task {}'s amsend data: {}",
                                split.len - push, src, std::strerror(err));
    }
    const SplitDoneWire pulled{me_, static_cast<std::int32_t>(rec->error), split.id};
    send_control_locked(src, Proto::split_pulled, &pulled, sizeof pulled);
  }
  rec->pulled = true;
  if (rec->pushed) finish_split_recv_locked(token);
}

void Context::Impl::release_split_locked(TaskId src, std::uint64_t id) {
  const SplitGoWire go{me_, kSplitPullDone, id, 0, 0, 0};
  send_control_locked(src, Proto::split_go, &go, sizeof go);
}

void Context::Impl::on_split_go_locked(const SplitGoWire& msg) {
  SplitSend** found = split_sends_.find(msg.id);
  if (found == nullptr || (*found)->tgt != msg.src || (*found)->pushed ||
      msg.push_len > (*found)->len || (msg.push_len > 0 && msg.buffer == 0)) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_go names no split amsend of this task to task {} "
                              "(record {:#x}, {} bytes to push)",
                              msg.src, msg.id, msg.push_len));
    return;
  }
  SplitSend& op = **found;
  if (msg.push_len > 0) {
    const int err = split_reaches(msg.src)
                        ? cma_copy(split_pid_[msg.src], const_cast<std::byte*>(op.data),
                                   msg.buffer, msg.push_len, true)
                        : EPERM;
    if (err != 0) send_errors_++;
    const SplitDoneWire pushed{me_, err ? static_cast<std::int32_t>(Errc::transport) : 0, msg.token};
    send_control_locked(msg.src, Proto::split_pushed, &pushed, sizeof pushed);
  }
  op.pushed = true;
  if (msg.flags & kSplitPullDone) op.pulled = true;
  if (op.pulled) finish_split_send_locked(msg.id);
}

void Context::Impl::on_split_pulled_locked(const SplitDoneWire& msg) {
  SplitSend** found = split_sends_.find(msg.record);
  if (found == nullptr || (*found)->tgt != msg.src || (*found)->pulled) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_pulled names no split amsend of this task to task {} "
                              "(record {:#x})",
                              msg.src, msg.record));
    return;
  }
  (*found)->pulled = true;
  if ((*found)->pushed) finish_split_send_locked(msg.record);
}

void Context::Impl::on_split_pushed_locked(const SplitDoneWire& msg) {
  SplitRecv** found = split_recvs_.find(msg.record);
  if (found == nullptr || (*found)->src != msg.src || (*found)->pushed) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_pushed names no split amsend from task {} here "
                              "(record {:#x})",
                              msg.src, msg.record));
    return;
  }
  SplitRecv& rec = **found;
  if (msg.code != 0) {
    rec.error = Errc::transport;
    rec.detail = fmt::format("split copy: task {} could not write its part of the amsend", msg.src);
  }
  rec.pushed = true;
  if (rec.pulled) finish_split_recv_locked(msg.record);
}

void Context::Impl::finish_split_send_locked(std::uint64_t id) {
  const std::unique_ptr<SplitSend> op(split_sends_.take(id).value_or(nullptr));
  if (op && op->origin) bump(*op->origin);
}

void Context::Impl::finish_split_recv_locked(std::uint64_t token) {
  const std::unique_ptr<SplitRecv> rec(split_recvs_.take(token).value_or(nullptr));
  if (!rec) return;
  if (rec->error == Errc::success) {
    landed_locked(rec->job);
    return;
  }
  // Like a failed rendezvous pull: reported to the origin, done for its fence.
  refuse_locked(rec->src, rec->error, rec->job.cookie, rec->detail);
  CompletionJob nothing{};
  nothing.src = rec->src;
  landed_locked(nothing);
}

}  // namespace lapi
