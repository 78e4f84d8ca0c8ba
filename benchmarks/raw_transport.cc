#include "benchmarks/raw_transport.hpp"

#include <poll.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "benchmarks/bench_error.hpp"

namespace lapis::benchmarks {
namespace {

void check_ucs(ucs_status_t status, const char* what) {
  if (status != UCS_OK) {
    throw BenchError(fmt::format("raw UCX: {} failed: {}", what, ucs_status_string(status)));
  }
}

// Appends a plain value or a byte range to an exchange blob.
void append(std::vector<std::byte>& blob, const void* data, std::size_t len) {
  const auto* bytes = static_cast<const std::byte*>(data);
  blob.insert(blob.end(), bytes, bytes + len);
}

}  // namespace

RawTransport::RawTransport(int rank, const RawUcxConfig& config, const Allgather& allgather)
    : rank_(rank), config_(config), allgather_(allgather) {
  create_worker();
  map_buffers();
  register_handlers();
  connect(allgather);
}

RawTransport::~RawTransport() {
  // Teardown is best effort: a failure here must not hide the results.
  try {
    disconnect(allgather_);
  } catch (const std::exception&) {
  }
  if (peer_rkey_ != nullptr) ucp_rkey_destroy(peer_rkey_);
  if (send_memh_ != nullptr) ucp_mem_unmap(context_, send_memh_);
  if (recv_memh_ != nullptr) ucp_mem_unmap(context_, recv_memh_);
  if (worker_ != nullptr) ucp_worker_destroy(worker_);
  if (context_ != nullptr) ucp_cleanup(context_);
}

// Same features and thread mode as Lapis' own context, so both get the same
// transports and protocol choices from UCX.
void RawTransport::create_worker() {
  ucp_config_t* ucp_config = nullptr;
  check_ucs(ucp_config_read(nullptr, nullptr, &ucp_config), "ucp_config_read");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.mt_workers_shared = 0;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                    UCP_FEATURE_WAKEUP;
  const ucs_status_t status = ucp_init(&params, ucp_config, &context_);
  ucp_config_release(ucp_config);
  check_ucs(status, "ucp_init");

  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  check_ucs(ucp_worker_create(context_, &worker_params, &worker_), "ucp_worker_create");
  check_ucs(ucp_worker_get_efd(worker_, &event_fd_), "ucp_worker_get_efd");
}

void RawTransport::map_buffers() {
  const auto map = [&](ucp_mem_h& memh, std::byte*& address) {
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address = nullptr;
    params.length = config_.buffer_size;
    params.flags = UCP_MEM_MAP_ALLOCATE;
    check_ucs(ucp_mem_map(context_, &params, &memh), "ucp_mem_map");
    ucp_mem_attr_t attr{};
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    check_ucs(ucp_mem_query(memh, &attr), "ucp_mem_query");
    address = static_cast<std::byte*>(attr.address);
    std::memset(address, 0, config_.buffer_size);
  };
  map(send_memh_, send_buf_);
  map(recv_memh_, recv_buf_);
}

void RawTransport::register_handlers() {
  const auto set = [&](unsigned id, ucp_am_recv_callback_t cb) {
    ucp_am_handler_param_t params{};
    params.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                        UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    params.id = id;
    params.flags = UCP_AM_FLAG_WHOLE_MSG;
    params.cb = cb;
    params.arg = this;
    check_ucs(ucp_worker_set_am_recv_handler(worker_, &params), "ucp_worker_set_am_recv_handler");
  };
  set(kDataAmId, &RawTransport::on_data);
  set(kNotifyAmId, &RawTransport::on_notify);
}

// One allgather carries everything the peer needs: the worker address, the
// receive buffer's address and its packed rkey.
void RawTransport::connect(const Allgather& allgather) {
  ucp_address_t* address = nullptr;
  std::size_t address_len = 0;
  check_ucs(ucp_worker_get_address(worker_, &address, &address_len), "ucp_worker_get_address");
  void* rkey = nullptr;
  std::size_t rkey_len = 0;
  const ucs_status_t packed = ucp_rkey_pack(context_, recv_memh_, &rkey, &rkey_len);
  if (packed != UCS_OK) ucp_worker_release_address(worker_, address);
  check_ucs(packed, "ucp_rkey_pack");

  std::vector<std::byte> mine;
  const std::uint64_t lengths[2] = {address_len, rkey_len};
  const auto recv_addr = reinterpret_cast<std::uint64_t>(recv_buf_);
  append(mine, lengths, sizeof(lengths));
  append(mine, &recv_addr, sizeof(recv_addr));
  append(mine, address, address_len);
  append(mine, rkey, rkey_len);
  ucp_worker_release_address(worker_, address);
  ucp_rkey_buffer_release(rkey);

  const auto all = allgather(mine);
  if (all.size() != 2) throw BenchError("raw UCX: the baseline needs exactly 2 ranks");
  const auto& peer = all[1 - rank_];
  std::uint64_t peer_lengths[2] = {0, 0};
  if (peer.size() < sizeof(peer_lengths) + sizeof(std::uint64_t)) {
    throw BenchError("raw UCX: short address blob from the peer");
  }
  std::memcpy(peer_lengths, peer.data(), sizeof(peer_lengths));
  std::memcpy(&peer_recv_addr_, peer.data() + sizeof(peer_lengths), sizeof(peer_recv_addr_));
  const std::byte* peer_address = peer.data() + sizeof(peer_lengths) + sizeof(std::uint64_t);
  if (peer.size() != sizeof(peer_lengths) + sizeof(std::uint64_t) + peer_lengths[0] +
                         peer_lengths[1]) {
    throw BenchError("raw UCX: malformed address blob from the peer");
  }

  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  ep_params.address = reinterpret_cast<const ucp_address_t*>(peer_address);
  if (config_.peer_error_mode) {
    ep_params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep_params.err_handler.cb = &RawTransport::on_endpoint_error;
    ep_params.err_handler.arg = this;
  }
  check_ucs(ucp_ep_create(worker_, &ep_params, &ep_), "ucp_ep_create");
  check_ucs(ucp_ep_rkey_unpack(ep_, peer_address + peer_lengths[0], &peer_rkey_),
            "ucp_ep_rkey_unpack");
}

// Flush, close with the peer's confirmation, then a bootstrap barrier so
// neither worker disappears while the other still needs it.
void RawTransport::disconnect(const Allgather& allgather) {
  if (ep_ == nullptr) return;
  ucp_request_param_t params{};
  void* request = ucp_ep_close_nbx(ep_, &params);
  ep_ = nullptr;
  if (UCS_PTR_IS_PTR(request)) {
    while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker_);
    ucp_request_free(request);
  }
  allgather({});
}

ucs_status_t RawTransport::on_data(void* arg, const void* /*header*/,
                                   std::size_t /*header_length*/, void* data, std::size_t length,
                                   const ucp_am_recv_param_t* param) {
  auto* self = static_cast<RawTransport*>(arg);
  if (length > self->config_.buffer_size) {
    self->async_error_ = UCS_ERR_MESSAGE_TRUNCATED;
    self->async_error_where_ = "data AM larger than the receive buffer";
    return UCS_OK;
  }
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0) {
    std::memcpy(self->recv_buf_, data, length);
    ++self->data_received_;
    return UCS_OK;
  }
  // Rendezvous: pull straight into the receive buffer; it counts once landed.
  ucp_request_param_t recv_params{};
  recv_params.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  recv_params.cb.recv_am = &RawTransport::on_rendezvous_done;
  recv_params.user_data = self;
  void* request = ucp_am_recv_data_nbx(self->worker_, data, self->recv_buf_, length, &recv_params);
  if (request == nullptr) {
    ++self->data_received_;
  } else if (UCS_PTR_IS_PTR(request)) {
    ++self->in_flight_;
  } else {
    self->async_error_ = UCS_PTR_STATUS(request);
    self->async_error_where_ = "ucp_am_recv_data_nbx";
  }
  return UCS_OK;
}

void RawTransport::on_rendezvous_done(void* request, ucs_status_t status, std::size_t /*length*/,
                                      void* user_data) {
  auto* self = static_cast<RawTransport*>(user_data);
  --self->in_flight_;
  if (status == UCS_OK) {
    ++self->data_received_;
  } else if (self->async_error_ == UCS_OK) {
    self->async_error_ = status;
    self->async_error_where_ = "rendezvous receive";
  }
  ucp_request_free(request);
}

ucs_status_t RawTransport::on_notify(void* arg, const void*, std::size_t, void*, std::size_t,
                                     const ucp_am_recv_param_t*) {
  ++static_cast<RawTransport*>(arg)->notifications_received_;
  return UCS_OK;
}

void RawTransport::on_endpoint_error(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* self = static_cast<RawTransport*>(arg);
  if (self->async_error_ == UCS_OK) {
    self->async_error_ = status;
    self->async_error_where_ = "endpoint to the peer";
  }
}

void RawTransport::throw_async_error() const {
  throw BenchError(
      fmt::format("raw UCX: {}: {}", async_error_where_, ucs_status_string(async_error_)));
}

void* RawTransport::checked(ucs_status_ptr_t request, const char* what) {
  if (UCS_PTR_IS_ERR(request)) check_ucs(UCS_PTR_STATUS(request), what);
  if (request != nullptr) ++in_flight_;
  return request;
}

// Same eager/rendezvous split Lapis applies to Amsend data.
void* RawTransport::send_data(std::size_t size) {
  ucp_request_param_t params{};
  params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  params.flags = size >= config_.eager_limit ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
  return checked(ucp_am_send_nbx(ep_, kDataAmId, nullptr, 0, send_buf_, size, &params),
                 "ucp_am_send_nbx(data)");
}

void* RawTransport::send_notification() {
  ucp_request_param_t params{};
  params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  params.flags = UCP_AM_SEND_FLAG_EAGER;
  return checked(ucp_am_send_nbx(ep_, kNotifyAmId, nullptr, 0, nullptr, 0, &params),
                 "ucp_am_send_nbx(notification)");
}

void* RawTransport::put(std::size_t size) {
  ucp_request_param_t params{};
  return checked(ucp_put_nbx(ep_, send_buf_, size, peer_recv_addr_, peer_rkey_, &params),
                 "ucp_put_nbx");
}

void* RawTransport::flush() {
  ucp_request_param_t params{};
  return checked(ucp_worker_flush_nbx(worker_, &params), "ucp_worker_flush_nbx");
}

void RawTransport::fence() { check_ucs(ucp_worker_fence(worker_), "ucp_worker_fence"); }

bool RawTransport::request_done(void*& request) {
  if (request == nullptr) return true;
  const ucs_status_t status = ucp_request_check_status(request);
  if (status == UCS_INPROGRESS) return false;
  ucp_request_free(request);
  request = nullptr;
  --in_flight_;
  check_ucs(status, "request completion");
  return true;
}

// The documented blocking recipe: the caller has just drained the worker
// (progress returned 0); arm it, and sleep only if nothing is pending. The
// timeout (Lapis' own) turns a missed wake-up into a slow sample, not a hang.
void RawTransport::sleep_on_event_fd() {
  const ucs_status_t armed = ucp_worker_arm(worker_);
  if (armed == UCS_ERR_BUSY) return;  // events arrived meanwhile: progress again
  check_ucs(armed, "ucp_worker_arm");
  pollfd pfd{event_fd_, POLLIN, 0};
  while (::poll(&pfd, 1, kSleepTimeoutMs) < 0) {
    if (errno != EINTR) throw BenchError(fmt::format("raw UCX: poll: {}", std::strerror(errno)));
  }
}

void RawTransport::yield_core() { sched_yield(); }

}  // namespace lapis::benchmarks
