// lapi::Context: the public face. Argument checks that need no engine state
// live here; the engine (internal/) does the rest.

#include "lapi/context.hpp"

#include <climits>

#include "lapi/internal/engine.hpp"

namespace lapi {

namespace {

Status check_live(const Context::Impl& e, const char* fn) {
  if (e.terminated_.load(std::memory_order_acquire)) {
    return fail(Errc::terminated, "{}: context already terminated", fn);
  }
  return Errc::success;
}

}  // namespace

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Context::~Context() {
  if (impl_ && !impl_->terminated_.load()) (void)term();
}

Status Context::init(const Config& config, std::unique_ptr<Context>& out) {
  if (config.policy > CompletionPolicy::fiber) {
    return fail(Errc::set_val, "init: config.policy={} is not a completion policy",
                static_cast<int>(config.policy));
  }
  if (config.mode > ProgressMode::interrupt) {
    return fail(Errc::set_val, "init: config.mode={} is not a progress mode", static_cast<int>(config.mode));
  }
  // A NaN bound would never raise split copy's start and a negative one always would: both are
  // mistakes, not preferences.
  if (!(config.split_cma_ratio_max >= 0)) {
    return fail(Errc::set_val, "init: config.split_cma_ratio_max={} is not a non-negative ratio",
                config.split_cma_ratio_max);
  }
  std::unique_ptr<Context> ctx(new Context(nullptr));
  ctx->impl_ = std::make_unique<Impl>(*ctx, config);
  ctx->concurrent_ = &ctx->impl_->lock_.switch_();
  Status s = ctx->impl_->start();
  if (!s.ok()) {
    ctx->impl_->terminated_.store(true);  // nothing to tear down collectively
    return s;
  }
  out = std::move(ctx);
  return Errc::success;
}

Status Context::term() {
  if (Status s = check_live(*impl_, "term"); !s.ok()) return s;
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "term: called from inside a header handler");
  }
  return impl_->shutdown();
}

TaskId Context::task_id() const { return impl_->me_; }
std::uint32_t Context::num_tasks() const { return impl_->ntasks_; }

Status Context::qenv(Query query, std::int64_t& value) const {
  if (Status s = check_live(*impl_, "qenv"); !s.ok()) return s;
  const Impl& e = *impl_;
  switch (query) {
    case Query::task_id: value = e.me_; break;
    case Query::num_tasks: value = e.ntasks_; break;
    case Query::max_uhdr_size: value = static_cast<std::int64_t>(e.max_uhdr_); break;
    case Query::max_data_size: value = INT64_MAX; break;
    case Query::interrupt_mode: value = e.config_.mode == ProgressMode::interrupt; break;
    case Query::completion_policy: value = static_cast<std::int64_t>(e.config_.policy); break;
    case Query::eager_limit: value = static_cast<std::int64_t>(e.config_.eager_limit); break;
    case Query::error_checking: value = e.config_.error_checking; break;
    case Query::shared_memory: value = e.config_.shm; break;
    case Query::split_copy: value = e.config_.split_copy && e.config_.shm; break;
    case Query::split_min: value = static_cast<std::int64_t>(e.split_threshold()); break;
    case Query::checksum: value = static_cast<std::int64_t>(e.config_.checksum); break;
    default: return fail(Errc::query_type, "qenv: query={} is not a query", static_cast<int>(query));
  }
  return Errc::success;
}

Status Context::senv(Query query, std::int64_t value) {
  if (Status s = check_live(*impl_, "senv"); !s.ok()) return s;
  Impl& e = *impl_;
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "senv: called from inside a header handler");
  }
  auto boolean = [&](const char* name) -> Status {
    if (value == 0 || value == 1) return Errc::success;
    return fail(Errc::set_val, "senv: {}={} must be 0 or 1", name, value);
  };
  switch (query) {
    case Query::interrupt_mode: {
      if (Status s = boolean("INTERRUPT_SET"); !s.ok()) return s;
      if (value) {
        e.config_.mode = ProgressMode::interrupt;
        e.start_progress_thread();
      } else {
        e.stop_progress_thread();
        e.config_.mode = ProgressMode::polling;
      }
      return Errc::success;
    }
    case Query::completion_policy:
      if (value < 0 || value > static_cast<int>(CompletionPolicy::fiber)) {
        return fail(Errc::set_val, "senv: completion_policy={} is not 0 (inline), 1 (thread) or 2 (fiber)", value);
      }
      e.apply_policy(static_cast<CompletionPolicy>(value));
      return Errc::success;
    case Query::eager_limit:
      if (value < 0) return fail(Errc::set_val, "senv: eager_limit={} is negative", value);
      e.config_.eager_limit = static_cast<std::size_t>(value);
      return Errc::success;
    case Query::split_min:
      if (value < 0) return fail(Errc::set_val, "senv: split_min={} is negative", value);
      e.config_.split_min = static_cast<std::size_t>(value);
      return Errc::success;
    case Query::error_checking:
      if (Status s = boolean("ERROR_CHK"); !s.ok()) return s;
      e.config_.error_checking = value != 0;
      return Errc::success;
    case Query::task_id:
    case Query::num_tasks:
    case Query::max_uhdr_size:
    case Query::max_data_size:
    case Query::shared_memory:
    case Query::split_copy:
    case Query::checksum:
      return fail(Errc::query_type, "senv: query={} is read-only", static_cast<int>(query));
  }
  return fail(Errc::query_type, "senv: query={} is not a query", static_cast<int>(query));
}

Status Context::register_handler(HandlerId id, HeaderHandler handler, void* arg) {
  if (Status s = check_live(*impl_, "register_handler"); !s.ok()) return s;
  return impl_->register_handler(id, handler, arg);
}

// The core is built without semantic interposition (lapi/BUILD), so a caller
// built with LTO may inline the whole engine into itself; MPI's flattened hot
// calls (mpi/internal/api_call.hpp) would take in all of it. Only the small
// Amsend (amsend_now) is worth that: the waits, the progress and the general
// Amsend stay calls, so that their bodies do not crowd the registers of
// MPI_Irecv and MPI_Waitall (measured: 33 more instructions per received
// message with them inlined).
[[gnu::noinline]] Status Context::amsend(TaskId tgt, HandlerId handler, const void* uhdr,
                                         std::size_t uhdr_len, const void* data,
                                         std::size_t data_len, const Counters& counters) {
  return impl_->amsend(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
}

Status Context::amsend_now(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                           const void* data, std::size_t data_len, bool& sent) {
  return impl_->amsend_now(tgt, handler, uhdr, uhdr_len, data, data_len, sent);
}

Status Context::put(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, const void* org_addr,
                    const Counters& counters) {
  return impl_->put(tgt, len, tgt_addr, org_addr, counters);
}

bool Context::writes_near(TaskId tgt) const { return impl_->writes_near(tgt); }

bool Context::sleeping() const { return impl_->shm_.self_sleeping(); }

Status Context::amsend_quiet(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len) {
  return impl_->amsend_quiet(tgt, handler, uhdr, uhdr_len);
}

Status Context::write_near(TaskId tgt, std::uint64_t tgt_addr, const void* data, std::size_t len) {
  return impl_->write_near(tgt, tgt_addr, data, len);
}

Status Context::get(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                    RemoteCounter tgt_cntr, Counter* org_cntr) {
  return impl_->get(tgt, len, tgt_addr, org_addr, tgt_cntr, org_cntr);
}

Status Context::rmw32(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int32_t operand,
                      std::int32_t compare, std::int32_t* prev, Counter* org_cntr) {
  return impl_->rmw(op, tgt, tgt_addr, operand, compare, prev, 4, org_cntr);
}

Status Context::rmw64(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int64_t operand,
                      std::int64_t compare, std::int64_t* prev, Counter* org_cntr) {
  return impl_->rmw(op, tgt, tgt_addr, operand, compare, prev, 8, org_cntr);
}

Status Context::register_memory(void* addr, std::size_t len) {
  if (Status s = check_live(*impl_, "register_memory"); !s.ok()) return s;
  return impl_->register_memory(addr, len, false, nullptr);
}

Status Context::deregister_memory(void* addr) {
  if (Status s = check_live(*impl_, "deregister_memory"); !s.ok()) return s;
  return impl_->deregister_memory(addr, false);
}

Status Context::alloc_registered(std::size_t len, void*& out) {
  if (Status s = check_live(*impl_, "alloc_registered"); !s.ok()) return s;
  return impl_->register_memory(nullptr, len, true, &out);
}

Status Context::free_registered(void* addr) {
  if (Status s = check_live(*impl_, "free_registered"); !s.ok()) return s;
  return impl_->deregister_memory(addr, true);
}

Status Context::register_counter(Counter& counter, RemoteCounter& out) {
  if (Status s = check_live(*impl_, "register_counter"); !s.ok()) return s;
  internal::Guard guard(impl_->lock_);
  // The handle is the counter's address (what LAPI's C API passes around);
  // the target only ever looks it up in this set, never follows it blindly.
  out.handle = reinterpret_cast<std::uint64_t>(&counter);
  impl_->counters_.insert(out.handle);
  return Errc::success;
}

Status Context::unregister_counter(Counter& counter) {
  if (Status s = check_live(*impl_, "unregister_counter"); !s.ok()) return s;
  internal::Guard guard(impl_->lock_);
  impl_->last_counter_hit_ = 0;
  if (impl_->counters_.erase(reinterpret_cast<std::uint64_t>(&counter)) == 0) {
    return fail(Errc::no_cntr_reg, "unregister_counter: counter {} is not registered",
                static_cast<void*>(&counter));
  }
  return Errc::success;
}

[[gnu::noinline]] Status Context::waitcntr(Counter& counter, int value, int* current) {
  if (impl_->config_.error_checking) {
    if (Status s = check_live(*impl_, "waitcntr"); !s.ok()) return s;
    if (value < 0) return fail(Errc::cntr_val, "waitcntr: val={} is negative", value);
  }
  Impl& e = *impl_;
  if (!e.consume(counter, value)) {
    Status s = e.wait_until([&] { return counter.error() != 0 || e.consume(counter, value); });
    if (!s.ok()) return s;
    if (const int code = counter.error(); code != 0) {
      counter.clear_error();
      return fail(static_cast<Errc>(code), "waitcntr: a target refused an operation that names this counter");
    }
  }
  if (current) *current = counter.get();
  return Errc::success;
}

[[gnu::noinline]] Status Context::probe() {
  if (Status s = check_live(*impl_, "probe"); !s.ok()) return s;
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "probe: called from inside a header handler");
  }
  (void)impl_->poll_once();
  return Errc::success;
}

Status Context::fence() {
  if (Status s = check_live(*impl_, "fence"); !s.ok()) return s;
  return impl_->fence();
}

Status Context::flush_rma(TaskId tgt) {
  if (Status s = check_live(*impl_, "flush_rma"); !s.ok()) return s;
  if (Status s = impl_->check_peer("flush_rma", tgt); !s.ok()) return s;
  return impl_->flush_rma(tgt);
}

Status Context::prefetch_key(TaskId tgt, std::uint64_t addr, std::size_t len) {
  if (Status s = check_live(*impl_, "prefetch_key"); !s.ok()) return s;
  if (tgt >= impl_->npeers()) return fail(Errc::tgt, "prefetch_key: tgt={} is not a task", tgt);
  if (Status s = impl_->check_peer("prefetch_key", tgt); !s.ok()) return s;
  if (len == 0) return Errc::success;
  ucp_rkey_h rkey = nullptr;
  return impl_->remote_key(tgt, addr, len, rkey);
}

Status Context::map_remote(TaskId tgt, std::uint64_t addr, std::size_t len, void*& local) {
  local = nullptr;
  if (Status s = check_live(*impl_, "map_remote"); !s.ok()) return s;
  if (tgt >= impl_->npeers()) return fail(Errc::tgt, "map_remote: tgt={} is not a task", tgt);
  if (Status s = impl_->check_peer("map_remote", tgt); !s.ok()) return s;
  if (addr == 0) return fail(Errc::tgt_addr_null, "map_remote: addr is null");
  return impl_->map_remote(tgt, addr, len, local);
}

Status Context::gfence() {
  if (Status s = check_live(*impl_, "gfence"); !s.ok()) return s;
  if (Status s = impl_->fence(); !s.ok()) return s;
  return impl_->barrier();
}

Status Context::barrier() {
  if (Status s = check_live(*impl_, "barrier"); !s.ok()) return s;
  return impl_->barrier();
}

Status Context::address_init(std::uint64_t mine, std::span<std::uint64_t> out) {
  if (Status s = check_live(*impl_, "address_init"); !s.ok()) return s;
  return impl_->address_init(mine, out);
}

void Context::set_remote_error_handler(RemoteErrorHandler handler, void* arg) {
  internal::Guard guard(impl_->lock_);
  impl_->faults_.remote_error_handler = handler;
  impl_->faults_.remote_error_arg = arg;
}

FaultStats Context::fault_stats() const {
  const internal::IntegrityStats& i = impl_->integrity_.stats;
  FaultStats f;
  f.refused_here = impl_->faults_.refused_here.load();
  f.reported_to_me = impl_->faults_.reported_to_me.load();
  f.checksum_mismatches = i.mismatches.load(std::memory_order_relaxed);
  f.retransmissions = i.retransmissions.load(std::memory_order_relaxed);
  f.checksum_repaired = i.repaired.load(std::memory_order_relaxed);
  f.checksum_failures = i.failures.load(std::memory_order_relaxed);
  f.corruptions_injected = i.injected.load(std::memory_order_relaxed);
  return f;
}

LinkStats Context::link_stats() const { return impl_->link_stats(); }

ShmStats Context::shm_stats() const {
  internal::Guard guard(impl_->lock_);
  ShmStats stats = impl_->shm_.stats();
  stats.ring_queued = impl_->backlog_.total();
  stats.split_sent = impl_->split_.sent;
  stats.split_received = impl_->split_.received;
  stats.split_parts_helped = impl_->split_.parts_helped;
  stats.staged_sent = impl_->split_.staged_sent;
  stats.staged_received = impl_->split_.staged_received;
  stats.staged_pulled = impl_->split_.staged_pulled;
  stats.staged_pulls_cut = impl_->split_.staged_pulls_cut;
  stats.staged_streamed = impl_->split_.staged_streamed;
  // Peers whose chosen path is the rings (a LAPIS_PATHS rule may send a peer of this host through
  // UCX; its ring is still watched).
  stats.peers = 0;
  for (const internal::Peer& peer : impl_->peers_) {
    stats.peers += peer.path == Path::shm;
    stats.split_peers += peer.split;
    stats.rma_mapped += peer.rma_mapped;
    stats.rma_cma += peer.rma_cma;
  }
  return stats;
}

bool Context::in_header_handler() const { return tl_header_handler_depth > 0; }

[[gnu::noinline]] void Context::hand_over_progress() { impl_->progress_.hand_over(); }

Context::DrivingProgress::DrivingProgress(Context& ctx)
    : ctx_(ctx), announced_(ctx.impl_->progress_.enter_wait()) {}
Context::DrivingProgress::~DrivingProgress() { ctx_.impl_->progress_.leave_wait(announced_); }

Status Context::unregister_handler(HandlerId id) {
  if (Status s = check_live(*impl_, "unregister_handler"); !s.ok()) return s;
  return impl_->unregister_handler(id);
}

}  // namespace lapi
