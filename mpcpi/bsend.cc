// Buffered mode: the buffers a program attached (the process's, and MPI
// 4.1's per-communicator and per-session ones under keys of the caller's
// choosing), sends that copy into them, flushes and detaches.
//
// A buffered send completes once its data is copied: an internal standard
// send (the carrier) then moves it from the buffer, and reap_locked gives
// the block back when the carrier is done.

#include <limits>

#include "lapi/line_copy.hpp"
#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

namespace {
// Transport polls a buffered send makes for room before it gives up.
constexpr int kBsendPolls = 256;
}  // namespace

Errc Engine::Impl::buffer_attach(void* buf, std::size_t size, Engine::BufferKey key,
                                 bool automatic) {
  if (buf == nullptr && size > 0 && !automatic)
    return fail(Errc::buffer, "buffer_attach: buf is null but size={}", size);
  EngineLock lock(*this);
  if (auto it = bsend_buffers_.find(key); it != bsend_buffers_.end()) {
    return fail(Errc::buffer, "buffer_attach: a buffer of {} bytes is already attached{}",
                it->second.size(), key == Engine::kProcessBuffer ? "" : " under this key");
  }
  bsend_buffers_.try_emplace(key, buf, size, kBsendOverhead, automatic);
  return Errc::success;
}

void Engine::Impl::give_back_bsend_locked(Request* carrier) {
  carrier->bsend_buffer->give_back(carrier->bsend_block, carrier->bsend_seq);
  carrier->bsend_buffer = nullptr;
  carrier->bsend_block = nullptr;
  --bsend_requests_;
}

template <typename Done, typename Then>
void Engine::Impl::poll_buffers_until(Done done, Then then) {
  PollLoop loop;
  while (true) {
    {
      EngineLock lock(*this);
      reap_locked();
      if (done()) {
        then();
        return;
      }
    }
    if (options_.variant == Variant::counters) poll_landed();
    (void)ctx_.probe();
    drain_outbox();
    idle(loop);
  }
}

bool Engine::Impl::flushed_locked(Engine::BufferKey key, std::uint64_t mark) const {
  auto it = bsend_buffers_.find(key);
  return it == bsend_buffers_.end() || it->second.flushed(mark);
}

Errc Engine::Impl::buffer_detach(void*& buf, std::size_t& size, Engine::BufferKey key) {
  buf = nullptr;
  size = 0;
  // Every message it holds, however late it came (a mark past them all).
  poll_buffers_until(
      [&] { return flushed_locked(key, std::numeric_limits<std::uint64_t>::max()); },
      [&] {
        auto it = bsend_buffers_.find(key);
        if (it == bsend_buffers_.end()) return;
        buf = it->second.base();
        size = it->second.size();
        bsend_buffers_.erase(it);
      });
  return Errc::success;
}

std::uint64_t Engine::Impl::buffer_flush_mark() {
  EngineLock lock(*this);
  return bsend_seq_;
}

bool Engine::Impl::buffer_flushed(Engine::BufferKey key, std::uint64_t mark) {
  EngineLock lock(*this);
  reap_locked();
  return flushed_locked(key, mark);
}

Errc Engine::Impl::buffer_flush(Engine::BufferKey key) {
  const std::uint64_t mark = buffer_flush_mark();
  poll_buffers_until([&] { return flushed_locked(key, mark); }, [] {});
  return Errc::success;
}

Errc Engine::Impl::ibsend(const void* buf, std::size_t bytes, int dest, int tag,
                          std::uint32_t context, Engine::BufferKey key, Request*& out) {
  out = nullptr;
  if (Errc e = check_send_args(buf, bytes, dest, tag, SendMode::buffered, "ibsend");
      e != Errc::success)
    return e;
  return send_buffered(buf, bytes, dest, tag, context, key, out);
}

Errc Engine::Impl::bsend(const void* buf, std::size_t bytes, int dest, int tag,
                         std::uint32_t context, Engine::BufferKey key) {
  Request* r = nullptr;
  if (Errc e = send_buffered(buf, bytes, dest, tag, context, key, r); e != Errc::success) return e;
  return wait(r, nullptr);
}

Errc Engine::Impl::send_buffered(const void* buf, std::size_t bytes, int dest, int tag,
                                 std::uint32_t context, Engine::BufferKey key, Request*& out) {
  std::byte* block = nullptr;
  Request* user;
  Request* carrier;
  for (int polls = 0;; ++polls) {
    EngineLock lock(*this);
    auto it = bsend_buffers_.find(key);
    if (it == bsend_buffers_.end())
      return fail(Errc::buffer, "isend(buffered): no buffer is attached (MPI_Buffer_attach)");
    detail::BsendBuffer& attached = it->second;
    auto got = attached.take(bytes, bsend_seq_);
    if (!got) {  // buffered messages that have left may not be reaped yet
      reap_locked();
      got = attached.take(bytes, bsend_seq_);
    }
    if (!got && polls < kBsendPolls && !attached.automatic()) {
      // Or their completions still wait in this task's inbox: poll for
      // them, never for a receiver (MPI_Bsend is local). Without this, a
      // buffer that held a round of messages its receiver had taken was
      // full for the next round until some other call polled.
      lock.unlock();
      (void)ctx_.probe();
      drain_outbox();
      continue;
    }
    if (!got && attached.automatic()) {
      return fail(Errc::buffer, "isend(buffered): no memory for {} bytes in the automatic buffer",
                  bytes);
    }
    if (!got) {
      return fail(Errc::buffer,
                  "isend(buffered): {} bytes (+{} overhead) do not fit in the attached buffer "
                  "of {} bytes ({} messages pending in it)",
                  bytes, kBsendOverhead, attached.size(), attached.held());
    }
    block = *got;
    if (bytes > 0) lapi::copy_bulk(block, buf, bytes);
    // The carrier is an internal standard send from the attached buffer; the
    // user's request is complete as soon as the data is copied.
    carrier = new_send(block, bytes, dest, tag, context, SendMode::standard);
    carrier->internal = true;
    carrier->bsend_block = block;
    carrier->bsend_buffer = &attached;
    carrier->bsend_seq = bsend_seq_++;
    reap_.push_back(carrier);
    ++bsend_requests_;
    user = new_send(buf, bytes, dest, tag, context, SendMode::buffered);
    complete(user);
    break;
  }
  out = user;
  start_send(carrier);
  return Errc::success;
}

}  // namespace mpcpi
