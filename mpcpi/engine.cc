// Engine lifetime (create, finalize, teardown), buffered-mode attach/detach,
// and the public Engine methods, each a thin forward to Engine::Impl.

#include <algorithm>
#include <vector>

#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"
#include "mpcpi/internal/handlers_table.hpp"

namespace mpcpi {

namespace {

// Smallest window a receiver grants: room for a few messages at the eager
// limit, whatever the cap (the cap is then exceeded; see README).
std::uint64_t window_for(const Options& o, std::uint32_t ntasks) {
  const std::uint64_t senders = std::max<std::uint32_t>(ntasks, 2) - 1;
  const std::uint64_t floor = 4 * credit_cost(o.eager_limit) + 64 * kEntryCost;
  return std::max<std::uint64_t>(o.early_arrival_max / senders, floor);
}

// What every task publishes at start: its window and its variant, which
// must agree across the job (counted messages name a counter only the
// counters variant registers).
constexpr int kVariantShift = 56;
std::uint64_t pack_setup(std::uint64_t window, Variant v) {
  return (std::uint64_t{static_cast<std::uint8_t>(v)} << kVariantShift) |
         (window & ((std::uint64_t{1} << kVariantShift) - 1));
}

// Slots outlive their engines on purpose (see HandlerSlot); kept reachable
// so leak checkers see them as owned.
HandlerSlot* new_handler_slot() {
  static std::mutex mutex;
  static auto* slots = new std::vector<std::unique_ptr<HandlerSlot>>;
  std::lock_guard lock(mutex);
  return slots->emplace_back(std::make_unique<HandlerSlot>()).get();
}

}  // namespace

Engine::Impl::Impl(lapi::Context& ctx, const Options& options)
    : ctx_(ctx), concurrent_(ctx.concurrency_switch()), options_(options) {}

Engine::Impl::~Impl() {
  if (slot_ != nullptr) slot_->impl.store(nullptr, std::memory_order_release);
  EngineLock lock(*this);
  std::vector<Message*> messages;
  arrived_.for_each([&](const detail::ArrivedEntry& e) {
    messages.push_back(static_cast<Message*>(const_cast<detail::ArrivedEntry*>(&e)));
  });
  for (Message* m : messages) {
    arrived_.remove(*m);
    free_message_locked(m);
  }
  for (RecvPeer& peer : recv_peers_) {
    for (auto& [seq, m] : peer.reorder) free_message_locked(m);
    peer.reorder.clear();
  }
  // No lapi calls here: the context may already be termed (and at process
  // exit lapi's thread-local error text may already be gone).
}

Errc Engine::Impl::start() {
  me_ = ctx_.task_id();
  ntasks_ = ctx_.num_tasks();
  std::int64_t max_uhdr = 0;
  std::int64_t lapi_eager = 0;
  if (lapi::Status s = ctx_.qenv(lapi::Query::max_uhdr_size, max_uhdr); !s.ok())
    return fail(Errc::transport, "create: {}", s.message());
  if (static_cast<std::size_t>(max_uhdr) < detail::kMaxHeader)
    return fail(Errc::transport, "create: needs {} bytes of Amsend user header, lapi offers {}",
                detail::kMaxHeader, max_uhdr);
  if (lapi::Status s = ctx_.qenv(lapi::Query::eager_limit, lapi_eager); !s.ok())
    return fail(Errc::transport, "create: {}", s.message());
  counted_limit_ = static_cast<std::size_t>(lapi_eager);
  // Split copy lands its data after the arrival callback: a counted
  // landing must stay below where it starts.
  std::int64_t split_copy = 0;
  std::int64_t split_min = 0;
  if (lapi::Status s = ctx_.qenv(lapi::Query::split_copy, split_copy); !s.ok())
    return fail(Errc::transport, "create: {}", s.message());
  if (lapi::Status s = ctx_.qenv(lapi::Query::split_min, split_min); !s.ok())
    return fail(Errc::transport, "create: {}", s.message());
  if (split_copy != 0)
    counted_limit_ = std::min(counted_limit_, static_cast<std::size_t>(split_min));
  // Enhanced = inline completion; copying eager data in the header handler
  // is its shortest form. base and counters keep their completion path (the
  // paper's variants differ exactly there).
  copy_in_handler_ = options_.variant == Variant::enhanced;

  if (options_.set_completion_policy) {
    const lapi::CompletionPolicy policy = options_.variant == Variant::enhanced
                                              ? lapi::CompletionPolicy::inline_run
                                              : lapi::CompletionPolicy::thread;
    if (lapi::Status s = ctx_.senv(lapi::Query::completion_policy, static_cast<int>(policy));
        !s.ok())
      return fail(Errc::transport, "create: setting the completion policy: {}", s.message());
  }

  npeers_.store(ntasks_, std::memory_order_relaxed);
  my_window_ = window_for(options_, ntasks_);
  send_peers_.resize(ntasks_);
  recv_peers_.resize(ntasks_);
  failed_peers_.assign(ntasks_, false);
  peer_landing_.resize(ntasks_);

  slot_ = new_handler_slot();
  slot_->impl.store(this, std::memory_order_release);
  // Through the slot too: a failure heard after this engine is gone finds null.
  if (lapi::Status s = ctx_.add_peer_failure_handler(&Engine::Impl::on_peer_failed, slot_); !s.ok())
    return fail(Errc::transport, "create: {}", s.message());
  handler_base_ = options_.first_handler_id;
  for (const HandlerEntry& entry : kHandlerTable) {
    const lapi::HandlerId id = handler_base_ + static_cast<lapi::HandlerId>(entry.type);
    if (lapi::Status s = ctx_.register_handler(id, entry.handler, slot_); !s.ok())
      return fail(Errc::transport, "create: registering handler {}: {}", id, s.message());
  }

  // Collective exchanges; they also make sure every task registered its
  // handlers before anyone sends.
  // A task that failed meanwhile (lapirun --continue-on-failure) may have
  // left no value (tgt_purged): the others' are all here, and it is never
  // sent to.
  std::vector<std::uint64_t> setup(ntasks_);
  if (lapi::Status s = ctx_.address_init(pack_setup(my_window_, options_.variant), setup);
      !s.ok() && s.code() != lapi::Errc::tgt_purged)
    return fail(Errc::transport, "create: exchanging windows: {}", s.message());
  for (lapi::TaskId t = 0; t < ntasks_; ++t) {
    if (ctx_.peer_failed(t)) continue;
    const auto variant = static_cast<Variant>(setup[t] >> kVariantShift);
    if (variant != options_.variant)
      return fail(Errc::invalid_arg, "create: task {} runs variant {}, this task {}", t,
                  to_string(variant), to_string(options_.variant));
    init_send_peer(t, setup[t]);
  }
  if (options_.variant == Variant::counters) {
    lapi::RemoteCounter mine;
    if (lapi::Status s = ctx_.register_counter(landing_counter_, mine); !s.ok())
      return fail(Errc::transport, "create: {}", s.message());
    landing_handle_ = mine.handle;
    std::vector<std::uint64_t> handles(ntasks_);
    if (lapi::Status s = ctx_.address_init(mine.handle, handles); !s.ok() && s.code() != lapi::Errc::tgt_purged)
      return fail(Errc::transport, "create: exchanging landing counters: {}", s.message());
    for (lapi::TaskId t = 0; t < ntasks_; ++t) peer_landing_[t].handle = handles[t];
  }
  return Errc::success;
}

void Engine::Impl::init_send_peer(std::size_t t, std::uint64_t setup) {
  SendPeer& peer = send_peers_[t];
  peer.window = setup & ((std::uint64_t{1} << kVariantShift) - 1);
  peer.credits = static_cast<std::int64_t>(peer.window);
  // Never eager beyond what the receiver's window can ever hold.
  peer.eager_limit = std::min<std::size_t>(options_.eager_limit, peer.window / 4);
}

Errc Engine::Impl::finalize() {
  if (finalized_) return Errc::success;
  // Deliver what flow control still holds and what the attached buffers
  // still carry; both need the receivers to keep receiving.
  PollLoop loop;
  while (true) {
    bool busy = false;
    {
      EngineLock lock(*this);
      reap_locked();
      busy = bsend_requests_ > 0;
      for (const SendPeer& p : send_peers_) busy |= p.held_count > 0;
    }
    if (!busy) break;
    if (options_.variant == Variant::counters) poll_landed();
    (void)ctx_.probe();
    drain_outbox();
    idle(loop);
  }
  drain_outbox();
  poll_landed();
  if (options_.variant == Variant::counters) (void)ctx_.unregister_counter(landing_counter_);
  finalized_ = true;
  return Errc::success;
}

// ---- Engine ------------------------------------------------------------------

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Errc Engine::create(lapi::Context& ctx, const Options& options, std::unique_ptr<Engine>& out) {
  out.reset();
  if (static_cast<unsigned>(options.variant) > static_cast<unsigned>(Variant::enhanced))
    return fail(Errc::invalid_arg, "create: variant={} is not base, counters or enhanced",
                static_cast<int>(options.variant));
  if (options.first_handler_id == 0 ||
      options.first_handler_id + kNumHandlerIds > lapi::kMaxUserHandlers)
    return fail(Errc::invalid_arg, "create: first_handler_id={} leaves no room for {} ids below {}",
                options.first_handler_id, kNumHandlerIds, lapi::kMaxUserHandlers);
  static_assert(detail::kMsgCount <= kNumHandlerIds);
  auto impl = std::make_unique<Impl>(ctx, options);
  if (Errc e = impl->start(); e != Errc::success) return e;
  out.reset(new Engine(std::move(impl)));
  return Errc::success;
}

Errc Engine::finalize() { return impl_->finalize(); }
const Options& Engine::options() const { return impl_->options_; }
EngineStats Engine::stats() const {
  EngineLock lock(*impl_);
  EngineStats s = impl_->stats_;
  s.held_copy_bytes = impl_->held_copy_bytes_;
  return s;
}
lapi::TaskId Engine::task_id() const { return impl_->me_; }
std::uint32_t Engine::num_tasks() const { return impl_->ntasks_; }

Engine::JoinSetup Engine::join_setup() const {
  return {pack_setup(impl_->my_window_, impl_->options_.variant), impl_->landing_handle_};
}

Errc Engine::join_peers(lapi::TaskId first, std::span<const JoinSetup> theirs) {
  Impl& e = *impl_;
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    const auto variant = static_cast<Variant>(theirs[i].setup >> kVariantShift);
    if (variant != e.options_.variant)
      return fail(Errc::invalid_arg, "join_peers: task {} of the other job runs variant {}, this task {}",
                  first + i, to_string(variant), to_string(e.options_.variant));
  }
  if (first < e.ntasks_ || first + theirs.size() > e.ctx_.num_peers()) {
    return fail(Errc::invalid_arg, "join_peers: first={}, {} tasks: not tasks lapi joined (this job has {} tasks, lapi {})",
                first, theirs.size(), e.ntasks_, e.ctx_.num_peers());
  }
  EngineLock lock(e);
  // Joins from several threads may come in any order (lapi gave each a range of its own):
  // each sets up its range; those between stay unused until their join sets them up.
  const std::size_t end = first + theirs.size();
  const std::size_t n = std::max<std::size_t>(end, e.npeers());
  e.send_peers_.resize(n);
  e.recv_peers_.resize(n);
  e.failed_peers_.resize(n, false);
  e.peer_landing_.resize(n);
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    e.init_send_peer(first + i, theirs[i].setup);
    e.peer_landing_[first + i].handle = theirs[i].landing;
  }
  e.npeers_.store(static_cast<std::uint32_t>(n), std::memory_order_release);
  return Errc::success;
}

Errc Engine::isend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
                   SendMode mode, Request*& out, bool* done_now) {
  return impl_->returning(impl_->isend(buf, bytes, dest, tag, context, mode, out, done_now));
}

Errc Engine::irecv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
                   Request*& out, bool user) {
  return impl_->returning(impl_->irecv(buf, capacity, source, tag, context, out, user));
}

Errc Engine::send(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
                  SendMode mode) {
  return impl_->returning(impl_->send(buf, bytes, dest, tag, context, mode));
}

Errc Engine::recv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
                  Status* status) {
  return impl_->returning(impl_->recv(buf, capacity, source, tag, context, status));
}

thread_local int t_library_calls = 0;
Engine::LibraryCall::LibraryCall() { ++t_library_calls; }
Engine::LibraryCall::~LibraryCall() { --t_library_calls; }

Errc Engine::test(Request* req, bool& completed, Status* status) {
  return impl_->test(req, completed, status, true);
}
Errc Engine::wait(Request* req, Status* status) { return impl_->returning(impl_->wait(req, status)); }
const Status& Engine::wait_in_place(Request* req) {
  if (req == nullptr) [[unlikely]] {
    static const Status refused{kAnySource, kAnyTag, 0, 0, Errc::invalid_request, false};
    (void)fail(Errc::invalid_request, "wait_in_place: request is null");
    return refused;
  }
  impl_->block_until_done(req);
  (void)impl_->returning(Errc::success);
  return req->status;
}
void Engine::release_done(Request* req) {
  if (req != nullptr) impl_->release_done(req);
}
Errc Engine::wait_any(std::span<Request* const> reqs, std::size_t& index, Status* status) {
  return impl_->returning(impl_->wait_any(reqs, index, status));
}
Errc Engine::peek(Request* req, bool& completed, Status* status) {
  return impl_->test(req, completed, status, false);
}
Errc Engine::request_free(Request* req) { return impl_->request_free(req); }
Errc Engine::cancel(Request* req) { return impl_->cancel(req); }
Errc Engine::progress() { return impl_->progress(); }
void Engine::set_progress_hook(ProgressHook hook) { impl_->progress_hook_ = hook; }
void Engine::set_idle_hook(IdleHook hook) { impl_->idle_hook_ = hook; }

Errc Engine::iprobe(int source, int tag, std::uint32_t context, bool& found, Status* status) {
  return impl_->iprobe(source, tag, context, found, status, nullptr);
}
Errc Engine::probe(int source, int tag, std::uint32_t context, Status* status) {
  return impl_->probe(source, tag, context, status, nullptr);
}
Errc Engine::improbe(int source, int tag, std::uint32_t context, Message*& msg, Status* status) {
  bool found = false;
  return impl_->iprobe(source, tag, context, found, status, &msg);
}
Errc Engine::mprobe(int source, int tag, std::uint32_t context, Message*& msg, Status* status) {
  return impl_->probe(source, tag, context, status, &msg);
}
Errc Engine::imrecv(Message* msg, void* buf, std::size_t capacity, Request*& out) {
  return impl_->imrecv(msg, buf, capacity, out);
}

Errc Engine::buffer_attach(void* buf, std::size_t size, BufferKey key, bool automatic) {
  return impl_->buffer_attach(buf, size, key, automatic);
}
Errc Engine::buffer_detach(void*& buf, std::size_t& size, BufferKey key) {
  return impl_->returning(impl_->buffer_detach(buf, size, key));
}
Errc Engine::buffer_flush(BufferKey key) { return impl_->returning(impl_->buffer_flush(key)); }
std::uint64_t Engine::buffer_flush_mark() { return impl_->buffer_flush_mark(); }
bool Engine::buffer_flushed(BufferKey key, std::uint64_t mark) {
  return impl_->buffer_flushed(key, mark);
}
Errc Engine::ibsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
                    BufferKey key, Request*& out) {
  return impl_->returning(impl_->ibsend(buf, bytes, dest, tag, context, key, out));
}
Errc Engine::bsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
                   BufferKey key) {
  if (Errc e = impl_->check_send_args(buf, bytes, dest, tag, SendMode::buffered, "bsend");
      e != Errc::success)
    return e;
  return impl_->returning(impl_->bsend(buf, bytes, dest, tag, context, key));
}

}  // namespace mpcpi
