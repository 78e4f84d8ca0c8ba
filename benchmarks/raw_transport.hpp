#pragma once
// Private to the raw-UCX baseline: one ucp context, worker and endpoint to
// the other rank, two ucp_mem_map-allocated buffers, two AM handlers, and the
// wait loops (spinning or sleeping on the event fd). The measurement loops
// live in raw_ucx.cc.

#include <cstddef>
#include <cstdint>

#include <ucp/api/ucp.h>

#include "benchmarks/raw_ucx.hpp"

namespace lapis::benchmarks {

class RawTransport {
 public:
  RawTransport(int rank, const RawUcxConfig& config, const Allgather& allgather);
  ~RawTransport();
  RawTransport(const RawTransport&) = delete;
  RawTransport& operator=(const RawTransport&) = delete;

  int rank() const { return rank_; }
  std::byte* send_buffer() const { return send_buf_; }
  std::byte* recv_buffer() const { return recv_buf_; }

  // Data AMs and notifications that have fully landed here so far (they only
  // grow, so a wait names the total it expects).
  std::uint64_t data_received() const { return data_received_; }
  std::uint64_t notifications_received() const { return notifications_received_; }

  // Non-blocking operations; each returns null (completed at once) or a
  // request for wait_request/request_done.
  void* send_data(std::size_t size);  // send buffer → peer's receive buffer
  void* send_notification();          // header-only AM
  void* put(std::size_t size);        // send buffer → peer's receive buffer
  void* flush();                      // all RMA completed at the target
  void fence();                       // orders earlier RMA before later operations

  // True once `request` (may be null) completed; frees it and sets it null.
  bool request_done(void*& request);
  void wait_request(void*& request, bool blocking) {
    wait_until([&] { return request_done(request); }, blocking);
  }

  // Progresses the worker until done() holds. Spinning: calls
  // ucp_worker_progress, and once it has found nothing kIdleSpinsBeforeYield
  // times in a row, yields the core on every further empty poll — the same
  // idle policy as Lapis' polling waits, so a busy host slows both columns
  // alike and the ratio still measures the message path.
  // Blocking: drain, ucp_worker_arm, then poll() on the event fd — but only
  // while none of this side's own operations (sends, puts, flushes,
  // rendezvous receives) is in flight. Those can need local progress that
  // raises no event (seen on shared memory: a sleeping rendezvous receiver or
  // a sender with queued sends stalls for milliseconds), so meanwhile it
  // spins as in polling mode.
  template <typename Done>
  void wait_until(Done done, bool blocking) {
    unsigned idle = 0;
    while (!done()) {
      if (async_error_ != UCS_OK) [[unlikely]] throw_async_error();
      if (ucp_worker_progress(worker_) != 0) {
        idle = 0;
        continue;
      }
      if (blocking && in_flight_ == 0) {
        sleep_on_event_fd();
      } else if (++idle >= kIdleSpinsBeforeYield) {
        yield_core();
      }
    }
  }

 private:
  static constexpr unsigned kIdleSpinsBeforeYield = 64;
  static constexpr int kSleepTimeoutMs = 10;
  static constexpr unsigned kDataAmId = 1;
  static constexpr unsigned kNotifyAmId = 2;

  static ucs_status_t on_data(void* arg, const void* header, std::size_t header_length,
                              void* data, std::size_t length, const ucp_am_recv_param_t* param);
  static ucs_status_t on_notify(void* arg, const void* header, std::size_t header_length,
                                void* data, std::size_t length, const ucp_am_recv_param_t* param);
  static void on_endpoint_error(void* arg, ucp_ep_h ep, ucs_status_t status);
  static void on_rendezvous_done(void* request, ucs_status_t status, std::size_t length,
                                 void* user_data);

  void create_worker();
  void map_buffers();
  void connect(const Allgather& allgather);
  void register_handlers();
  void sleep_on_event_fd();
  [[noreturn]] void throw_async_error() const;
  static void yield_core();
  void disconnect(const Allgather& allgather);
  void* checked(ucs_status_ptr_t request, const char* what);

  int rank_;
  RawUcxConfig config_;
  Allgather allgather_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int event_fd_ = -1;
  ucp_ep_h ep_ = nullptr;
  ucp_mem_h send_memh_ = nullptr;
  ucp_mem_h recv_memh_ = nullptr;
  std::byte* send_buf_ = nullptr;
  std::byte* recv_buf_ = nullptr;
  std::uint64_t peer_recv_addr_ = 0;
  ucp_rkey_h peer_rkey_ = nullptr;
  std::uint64_t data_received_ = 0;
  std::uint64_t notifications_received_ = 0;
  // This side's operations not yet completed (requests it holds, rendezvous
  // receives under way).
  std::uint64_t in_flight_ = 0;
  // First error reported from a callback (where throwing is not allowed).
  ucs_status_t async_error_ = UCS_OK;
  const char* async_error_where_ = "";
};

}  // namespace lapis::benchmarks
