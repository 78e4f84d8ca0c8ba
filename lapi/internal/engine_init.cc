// Engine life cycle: UCX context and worker, the protocol handler table,
// address exchange through the bootstrap, endpoints to every task, Term.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/crc32c_fold.hpp"
#include "lapi/internal/engine.hpp"
#include "runtime/bootstrap.hpp"

namespace lapi {

using namespace internal;

namespace {

// UCX reports a bad UCX_* setting only by its effect ("No such device" for
// UCX_TLS=bogus): name the settings in force so the user knows where to look.
std::string ucx_settings_hint() {
  std::string set;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "UCX_", 4) != 0) continue;
    set += set.empty() ? "" : ", ";
    set += *e;
  }
  return set.empty() ? "" : " (UCX settings in the environment: " + set + ")";
}

// Trampolines from UCX's untyped callbacks to the engine. Each control
// message kind gets a fixed-size header check before it is read.
// Handler: a method of the engine or of its checked transfers (checked_).
template <typename Wire, auto Handler>
ucs_status_t on_fixed(void* arg, const void* header, size_t header_len, void*, size_t,
                      const ucp_am_recv_param_t*) {
  auto* impl = static_cast<Context::Impl*>(arg);
  if (header_len != sizeof(Wire)) {
    std::uint32_t src = UINT32_MAX;
    if (header_len >= sizeof(std::uint32_t)) std::memcpy(&src, header, sizeof src);
    impl->refuse_locked(src, Errc::hdr_len, 0,
                        fmt::format("control message of {} bytes, expected {}", header_len,
                                    sizeof(Wire)));
    return UCS_OK;
  }
  Wire msg;
  std::memcpy(&msg, header, sizeof msg);
  if (msg.src >= impl->npeers()) {
    impl->refuse_locked(UINT32_MAX, Errc::tgt, 0, fmt::format("bad source task {}", msg.src));
    return UCS_OK;
  }
  if constexpr (std::is_invocable_v<decltype(Handler), CheckedTransfers&, const Wire&>) {
    (impl->checked_.*Handler)(msg);
  } else {
    (impl->*Handler)(msg);
  }
  return UCS_OK;
}

// Messages with a fixed part followed by variable bytes.
template <typename Wire, void (Context::Impl::*Handler)(const Wire&, const void*, std::size_t)>
ucs_status_t on_variable(void* arg, const void* header, size_t header_len, void*, size_t,
                         const ucp_am_recv_param_t*) {
  auto* impl = static_cast<Context::Impl*>(arg);
  if (header_len < sizeof(Wire)) {
    impl->refuse_locked(UINT32_MAX, Errc::hdr_len, 0,
                        fmt::format("truncated control message of {} bytes", header_len));
    return UCS_OK;
  }
  Wire msg;
  std::memcpy(&msg, header, sizeof msg);
  if (msg.src >= impl->npeers()) {
    impl->refuse_locked(UINT32_MAX, Errc::tgt, 0, fmt::format("bad source task {}", msg.src));
    return UCS_OK;
  }
  (impl->*Handler)(msg, static_cast<const std::byte*>(header) + sizeof(Wire),
                   header_len - sizeof(Wire));
  return UCS_OK;
}

ucs_status_t on_amsend_cb(void* arg, const void* header, size_t header_len, void* data,
                          size_t length, const ucp_am_recv_param_t* param) {
  return static_cast<Context::Impl*>(arg)->on_amsend(header, header_len, data, length, param);
}

ucs_status_t on_checksum_resend_cb(void* arg, const void* header, size_t header_len, void* data,
                                  size_t length, const ucp_am_recv_param_t* param) {
  return static_cast<Context::Impl*>(arg)->checked_.on_checksum_resend(header, header_len, data,
                                                                       length, param);
}

ucs_status_t on_stripe_frag_cb(void* arg, const void* header, size_t header_len, void* data,
                               size_t length, const ucp_am_recv_param_t* param) {
  return static_cast<Context::Impl*>(arg)->on_stripe_frag(header, header_len, data, length, param);
}

ucs_status_t on_amsend_packed_cb(void* arg, const void* header, size_t header_len, void* data,
                                 size_t length, const ucp_am_recv_param_t* param) {
  return static_cast<Context::Impl*>(arg)->on_amsend_packed(header, header_len, data, length,
                                                            param);
}

}  // namespace

Context::Impl::Impl(Context& owner, const Config& config) : owner_(owner), config_(config) {}

Context::Impl::~Impl() { watch_failures(false); }

namespace {

ucs_status_t register_am(ucp_worker_h worker, Proto id, ucp_am_recv_callback_t cb, void* arg) {
  ucp_am_handler_param_t p{};
  p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                 UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  p.id = static_cast<unsigned>(id);
  p.cb = cb;
  p.arg = arg;
  p.flags = UCP_AM_FLAG_WHOLE_MSG;
  return ucp_worker_set_am_recv_handler(worker, &p);
}

}  // namespace

Status Context::Impl::start() {
  lapis::runtime::Bootstrap* boot = nullptr;
  try {
    boot = &lapis::runtime::process_bootstrap();
  } catch (const std::exception& e) {
    return fail(Errc::bootstrap, "init: {}", e.what());
  }
  me_ = static_cast<TaskId>(boot->rank());
  ntasks_ = static_cast<std::uint32_t>(boot->size());
  integrity_.on = config_.checksum == Checksum::crc32c;
  integrity_.injector = FaultInjector(integrity_.on ? config_.fault_corrupt : FaultCorrupt{});
  if (integrity_.on) {
    integrity_.replay.resize(ntasks_);  // each ring allocates its memory on first use
    integrity_.verified.resize(ntasks_);
  }
  handlers_[kPutFrameHandler] = {&Context::Impl::land_put_frame, this};
  // From here on peers may wait for this task; shutdown() leaves again.
  boot->enter_job(config_.leave_call);
  entered_job_ = true;

  ucp_config_t* ucp_config = nullptr;
  if (ucs_status_t st = ucp_config_read(nullptr, nullptr, &ucp_config); st != UCS_OK) {
    return fail(Errc::transport, "init: ucp_config_read: {}{}", ucs_status_string(st),
                ucx_settings_hint());
  }
  // A job on one host (lapirun's, or a task alone) needs no network. UCX's TCP transport would
  // listen on every interface and accept anyone's connections; loopback still carries a job
  // whose shared memory is unusable. A UCX_NET_DEVICES the user set wins. (Jobs across hosts,
  // under PMIx, keep UCX's choice.)
  // A lapirun job across hosts: only the interface that reaches the launcher (so UCX neither
  // listens elsewhere nor sends between hosts over loopback).
  // LAPIS_NET_IF (config_.net_if) overrides either choice, under PMIx too.
  const std::string_view boot_kind = boot->kind();
  const std::string net_if = !config_.net_if.empty() ? config_.net_if : boot->network_interface();
  net_if_ = net_if;
  if ((boot_kind == "lapirun" || boot_kind == "singleton" || !config_.net_if.empty()) &&
      std::getenv("UCX_NET_DEVICES") == nullptr) {
    const std::string devices = net_if.empty() ? "lo" : net_if;
    if (ucs_status_t st = ucp_config_modify(ucp_config, "NET_DEVICES", devices.c_str()); st != UCS_OK) {
      ucp_config_release(ucp_config);
      return fail(Errc::transport, "init: restricting UCX to {}: {}", devices, ucs_status_string(st));
    }
  }
  // LAPIS_TRANSPORTS: UCX keeps to the methods allowed (and self, for a task's own messages).
  if (config_.transports != kTransportsAll && std::getenv("UCX_TLS") == nullptr) {
    ucx_tcp_only_ = (config_.transports & kTransportShm) == 0;
    const char* tls = ucx_tcp_only_ ? "tcp,self" : "sm,self";
    if (ucs_status_t st = ucp_config_modify(ucp_config, "TLS", tls); st != UCS_OK) {
      ucp_config_release(ucp_config);
      return fail(Errc::transport, "init: restricting UCX to {}: {}", tls, ucs_status_string(st));
    }
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                    UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  ucs_status_t st = ucp_init(&params, ucp_config, &ucp_);
  ucp_config_release(ucp_config);
  if (st != UCS_OK) {
    return fail(Errc::transport, "init: ucp_init: {}{}", ucs_status_string(st), ucx_settings_hint());
  }

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // lock_ serializes our threads
  st = ucp_worker_create(ucp_, &wp, &worker_);
  if (st != UCS_OK) {
    return fail(Errc::transport, "init: ucp_worker_create: {}{}", ucs_status_string(st),
                ucx_settings_hint());
  }

  ucp_worker_attr_t attr{};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  if (ucp_worker_query(worker_, &attr) != UCS_OK) {
    return fail(Errc::transport, "init: ucp_worker_query failed");
  }
  // MAX_UHDR_SZ: what UCX carries in an AM header, less our own words, and
  // no more than a pooled send header holds.
  const std::size_t overhead =
      kMaxAmsendOverhead + (config_.checksum != Checksum::none ? sizeof(ChecksumWire) : 0);
  const std::size_t ucx_room =
      attr.max_am_header > overhead ? attr.max_am_header - overhead : 0;
  max_uhdr_ = std::min(ucx_room, kSendHeaderCapacity - overhead);
  if (ucp_worker_get_efd(worker_, &efd_) != UCS_OK) {
    return fail(Errc::transport, "init: ucp_worker_get_efd failed");
  }

  // The protocol table: every message kind and its target-side handler.
  struct Entry {
    Proto id;
    ucp_am_recv_callback_t cb;
  };
  const Entry table[] = {
      {Proto::amsend, on_amsend_cb},
      {Proto::amsend_packed, on_amsend_packed_cb},
      {Proto::counter_update,
       on_fixed<CounterUpdateWire, &Context::Impl::on_counter_update_locked>},
      {Proto::completion_ack,
       on_fixed<CompletionAckWire, &Context::Impl::on_completion_ack_locked>},
      {Proto::fault, on_variable<FaultWire, &Context::Impl::on_fault_bytes_locked>},
      {Proto::rkey_request, on_fixed<RkeyRequestWire, &Context::Impl::on_rkey_request_locked>},
      {Proto::rkey_reply, on_variable<RkeyReplyWire, &Context::Impl::on_rkey_reply_bytes_locked>},
      {Proto::rkey_invalidate,
       on_fixed<RkeyInvalidateWire, &Context::Impl::on_rkey_invalidate_locked>},
      {Proto::rkey_dropped, on_fixed<RkeyInvalidateWire, &Context::Impl::on_rkey_dropped_locked>},
      {Proto::fence_request, on_fixed<FenceWire, &Context::Impl::on_fence_request_locked>},
      {Proto::fence_reply, on_fixed<FenceWire, &Context::Impl::on_fence_reply_locked>},
      {Proto::barrier, on_fixed<BarrierWire, &Context::Impl::on_barrier_locked>},
      {Proto::address_init, on_fixed<AddressInitWire, &Context::Impl::on_address_init_locked>},
      {Proto::wake, on_fixed<WakeWire, &Context::Impl::on_wake_locked>},
      {Proto::goodbye, on_fixed<GoodbyeWire, &Context::Impl::on_goodbye_locked>},
      {Proto::split_go, on_fixed<SplitGoWire, &Context::Impl::on_split_go_locked>},
      {Proto::split_last, on_fixed<SplitDoneWire, &Context::Impl::on_split_last_locked>},
      {Proto::split_done, on_fixed<SplitDoneWire, &Context::Impl::on_split_done_locked>},
      {Proto::stripe_go, on_fixed<SplitGoWire, &Context::Impl::on_stripe_go_locked>},
      {Proto::stripe_frag, on_stripe_frag_cb},
      {Proto::checksum_nack,
       on_fixed<ChecksumNackWire, &CheckedTransfers::on_checksum_nack_locked>},
      {Proto::checksum_resend, on_checksum_resend_cb},
      {Proto::checksum_ack, on_fixed<ChecksumAckWire, &CheckedTransfers::on_checksum_ack_locked>},
      {Proto::checksum_verified,
       on_fixed<ChecksumVerifiedWire, &CheckedTransfers::on_checksum_verified_locked>},
      {Proto::put_verify, on_fixed<PutVerifyWire, &CheckedTransfers::on_put_verify_locked>},
      {Proto::put_verdict, on_fixed<ChecksumAckWire, &CheckedTransfers::on_put_verdict_locked>},
      {Proto::get_check, on_fixed<GetCheckWire, &CheckedTransfers::on_get_check_locked>},
      {Proto::get_check_reply,
       on_fixed<GetCheckReplyWire, &CheckedTransfers::on_get_check_reply_locked>},
      {Proto::rmw_request, on_fixed<RmwRequestWire, &CheckedTransfers::on_rmw_request_locked>},
      {Proto::rmw_reply, on_fixed<RmwReplyWire, &CheckedTransfers::on_rmw_reply_locked>},
  };
  for (const Entry& e : table) {
    st = register_am(worker_, e.id, e.cb, this);
    if (st != UCS_OK) return fail(Errc::transport, "init: AM handler registration failed");
  }

  // Exchange cards and connect to every task (self included: UCX's self transport gives
  // loopback the same code path).
  if (Status s = connect_peers(*boot); !s.ok()) return s;
  failures_.size_for(ntasks_ + kMaxJoinedTasks);
  watch_failures(true);

  if (const char* verbose = std::getenv("LAPIS_VERBOSE"); verbose != nullptr && *verbose == '1') report_paths();
  apply_policy(config_.policy);
  if (config_.mode == ProgressMode::interrupt) start_progress_thread();
  // Everyone has its handlers registered (and its peers' inboxes mapped)
  // before anyone sends.
  const Status s = barrier();
  shm_.unlink();
  return s;
}

Status Context::Impl::shutdown() {
  if (terminated_.exchange(true)) return Errc::success;
  // The job's tasks only: a joined task left without leave_tasks (MPI_Comm_disconnect) may be in
  // its own shutdown, its endpoint to us closed, and never answer.
  Status s = fence_tasks(0, ntasks_);
  {
    Guard guard(lock_);
    leave_joined_locked();
  }
  // Even after a failed fence: the others wait for this task's answers in
  // their own fences until they meet it here (a task that went on to the
  // out-of-band barrier below instead left them waiting for ever).
  if (Status b = barrier(); s.ok()) s = b;
  // With failed tasks this barrier cannot complete: the tasks left meet in
  // the bootstrap's barrier of the survivors instead (barrier_without), polling
  // meanwhile, so that a survivor still in its fence gets our answers.
  const bool failures = failures_.any_job_failed.load(std::memory_order_acquire);
  if (failures) {
    s = Errc::success;
    std::atomic<bool> met{false};
    std::vector<int> failed;
    for (std::uint32_t t = 0; t < ntasks_; ++t) {
      if (failures_.failed[t].load(std::memory_order_acquire)) failed.push_back(static_cast<int>(t));
    }
    std::thread meet([&met, &failed] {
      try {
        lapis::runtime::process_bootstrap().barrier_without(failed);
      } catch (const std::exception&) {
      }
      met.store(true, std::memory_order_release);
    });
    while (wait_until([&met] { return met.load(std::memory_order_acquire); }).code() == Errc::tgt_purged) {
    }
    meet.join();
  }
  if (integrity_.on && std::getenv("LAPIS_DEBUG")) {
    const FaultStats f = owner_.fault_stats();
    fmt::print(stderr,
               "lapis[{}]: checksums (crc32c{}): {} mismatches, {} retransmissions, {} repaired, "
               "{} failed, {} injected\n",
               me_,
               crc32c_fold_supported() ? ", SSE4.2 + VPCLMULQDQ"
               : crc32c_hardware()     ? ", SSE4.2"
                                       : ", table",
               f.checksum_mismatches,
               f.retransmissions, f.checksum_repaired, f.checksum_failures, f.corruptions_injected);
  }
  stop_progress_thread();
  runner_.handler_thread.reset();  // joins after finishing queued jobs
  runner_.fibers.reset();
  // A final out-of-band barrier: nobody closes endpoints while a peer may
  // still be receiving our last barrier message. (With failures, the one
  // above.)
  try {
    if (!failures) lapis::runtime::process_bootstrap().barrier();
  } catch (const std::exception&) {
  }
  if (entered_job_) lapis::runtime::process_bootstrap().leave_job();
  watch_failures(false);
  watch_.stop(true);  // goodbye: this task leaves in order
  shm_.close();
  links_.close();
  for (Peer& peer : peers_) {
    for (auto& [base, r] : peer.remote_regions) ucp_rkey_destroy(r.rkey);
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    if (peer.ep != nullptr) (void)wait_request(ucp_ep_close_nbx(peer.ep, &p));
  }
  peers_.clear();
  for (auto& [base, r] : regions_.by_base) ucp_mem_unmap(ucp_, r.memh);
  regions_.by_base.clear();
  if (worker_) ucp_worker_destroy(worker_);
  if (ucp_) ucp_cleanup(ucp_);
  worker_ = nullptr;
  ucp_ = nullptr;
  return s;
}

}  // namespace lapi
