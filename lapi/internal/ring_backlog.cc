// Amsends waiting for room in a full shared-memory ring (ring_backlog.hpp
// says why and when they leave). Out of line: the flattened MPI calls
// (mpi/internal/api_call.hpp) would otherwise take all of this in.

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

[[gnu::noinline]]
bool Context::Impl::queue_amsend_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                        const void* uhdr, std::size_t uhdr_len, const void* data,
                                        std::size_t data_len, const Counters& counters) {
  // Without an origin counter the caller may never come back to the
  // library to send it: UCX, which needs nothing more from this task.
  if (counters.origin == nullptr) return false;
  const bool checked = (extra_flags & kChecksummed) != 0;
  if (ring_frame_len(counters, checked, uhdr_len, data_len) > ShmChannel::kFrameLimit) return false;
  const auto* u = static_cast<const std::byte*>(uhdr);
  backlog_.push(tgt, QueuedAmsend{handler, extra_flags, data, data_len, counters,
                                  std::vector<std::byte>(u, u + uhdr_len)});
  ++peers_[tgt].sent_to;  // a fence from now on waits for it
  return true;
}

[[gnu::noinline]]
bool Context::Impl::flush_backlog_locked(TaskId tgt) {
  if (!backlog_.has(tgt)) return false;
  bool moved = false;
  auto& queue = backlog_.of(tgt);
  while (!queue.empty()) {
    const QueuedAmsend& a = queue.front();
    // A ring still full counts nothing (ring_full counts what takes UCX).
    const RingSend r =
        (a.extra_flags & kChecksummed) != 0
            ? amsend_shm_locked<true>(tgt, a.handler, a.extra_flags, a.uhdr.data(), a.uhdr.size(),
                                      a.data, a.data_len, a.counters, true)
            : amsend_shm_locked<false>(tgt, a.handler, a.extra_flags, a.uhdr.data(),
                                       a.uhdr.size(), a.data, a.data_len, a.counters, true);
    if (r == RingSend::full) return moved;
    if (r == RingSend::refused) {
      // The target went to sleep: UCX wakes it, and everything queued
      // behind goes that way too (it would find the target asleep as well).
      queue_to_ucx_locked(tgt, true);
      return true;
    }
    backlog_.pop(tgt);
    moved = true;
  }
  return moved;
}

[[gnu::noinline]]
bool Context::Impl::flush_backlogs_locked() {
  bool moved = false;
  for (TaskId tgt = 0; tgt < backlog_.targets() && !backlog_.empty(); ++tgt) {
    moved |= flush_backlog_locked(tgt);
  }
  return moved;
}

[[gnu::noinline]]
void Context::Impl::backlog_to_ucx_locked() {
  for (TaskId tgt = 0; tgt < backlog_.targets() && !backlog_.empty(); ++tgt) {
    queue_to_ucx_locked(tgt, false);
  }
}

[[gnu::noinline]]
void Context::Impl::queue_to_ucx_locked(TaskId tgt, bool found_asleep) {
  auto& queue = backlog_.of(tgt);
  while (!queue.empty()) {
    const QueuedAmsend a = std::move(queue.front());
    backlog_.pop(tgt);
    --peers_[tgt].sent_to;  // counted when queued; the UCX send counts it again
    // Through UCX for the full ring it waited for (the first, when it found
    // the target asleep, is counted as such already).
    if (!found_asleep) shm_.note_ring_full();
    found_asleep = false;
    const Status s = amsend_host_locked(tgt, a.handler, a.extra_flags, a.uhdr.data(),
                                        a.uhdr.size(), a.data, a.data_len, a.counters);
    if (!s.ok()) [[unlikely]] {
      // Its amsend returned long ago: the error goes where a send that UCX
      // failed later goes, and the origin buffer is free.
      ++send_errors_;
      if (a.counters.origin) bump(*a.counters.origin);
    }
  }
}

[[gnu::noinline]]
void Context::Impl::drop_backlog_to_locked(TaskId tgt) {
  if (!backlog_.has(tgt)) return;
  auto& queue = backlog_.of(tgt);
  while (!queue.empty()) {
    if (Counter* origin = queue.front().counters.origin) bump(*origin);
    backlog_.pop(tgt);
  }
}

}  // namespace lapi
