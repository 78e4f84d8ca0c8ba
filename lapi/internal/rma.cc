// Put, Get and Rmw on registered memory: validated here, the target's region
// looked up, then moved by the target's path (path_ops.hpp; today UCX RMA and
// atomics, ucx_path.cc). An Rmw on this task's own memory is the CPU's.

#include <atomic>
#include <cstring>
#include <mutex>

#include "lapi/internal/engine.hpp"
#include "lapi/internal/rmw_apply.hpp"

namespace lapi {

using namespace internal;

Status Context::Impl::check_transfer_call(const char* fn, TaskId tgt, std::size_t len,
                                          std::uint64_t tgt_addr, const void* org_addr) const {
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "{}: called from inside a header handler", fn);
  }
  if (!config_.error_checking && !failures_.any_failed.load(std::memory_order_relaxed)) {
    return Errc::success;
  }
  if (terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "{}: context already terminated", fn);
  if (tgt >= npeers()) return fail(Errc::tgt, "{}: tgt={} is not a task (0..{})", fn, tgt, npeers() - 1);
  if (len > 0 && org_addr == nullptr) return fail(Errc::org_addr_null, "{}: org_addr is null but len={}", fn, len);
  if (len > 0 && tgt_addr == 0) return fail(Errc::tgt_addr_null, "{}: tgt_addr is null but len={}", fn, len);
  return failures_.any_failed.load(std::memory_order_relaxed) ? check_peer(fn, tgt) : Status(Errc::success);
}

// The target region's rkey under the operation's own lock: the last region
// used, else (fetched once from the target, which blocks with progress)
// remote_key() with the lock let go meanwhile.
Status Context::Impl::transfer_rkey(std::unique_lock<MaybeMutex>& guard, TaskId tgt,
                                    std::uint64_t tgt_addr, std::size_t len, ucp_rkey_h& rkey) {
  if (len == 0 || cached_rkey_locked(tgt, tgt_addr, len, rkey)) [[likely]] return Errc::success;
  guard.unlock();
  Status s = remote_key(tgt, tgt_addr, len, rkey);
  guard.lock();
  return s;
}

namespace {

// The largest Put with a target or completion counter that goes to a task on
// this node as a ring frame (to kPutFrameHandler) rather than in place: the
// target reads one line for the data and the counter instead of the frame
// and then the data, and memory it did not get from alloc_registered costs
// no cross-memory write (1.1 us or more here). lapi_latency --op put,amsend,
// fast latency mode: 8 B 0.168 us in place against 0.113 as a frame (Amsend),
// 256 B 0.164 / 0.130, 1 KiB 0.179 / 0.177, 2 KiB 0.181 / 0.233. A Put
// with no counter at the target stays in place: no target polls for it.
constexpr std::size_t kPutFrameMax = 512;

}  // namespace

Landing Context::Impl::land_put_frame(Context&, const AmHeaderInfo& info) {
  const auto& self = *static_cast<const Context::Impl*>(info.handler_arg);
  std::uint64_t addr = 0;
  if (info.uhdr_len != sizeof addr) return Landing{.refuse = static_cast<int>(Errc::hdr_len)};
  std::memcpy(&addr, info.uhdr, sizeof addr);
  if (info.data_len != 0 && !self.regions_.covers(addr, info.data_len)) {
    return Landing{.refuse = static_cast<int>(Errc::not_registered)};
  }
  return Landing{.buffer = reinterpret_cast<void*>(addr)};
}

Status Context::Impl::put(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                          const void* org_addr, const Counters& counters) {
  if (Status s = check_transfer_call("put", tgt, len, tgt_addr, org_addr); !s.ok()) [[unlikely]] {
    return s;
  }
  std::unique_lock guard(lock_);
  ucp_rkey_h rkey = nullptr;
  if (Status s = transfer_rkey(guard, tgt, tgt_addr, len, rkey); !s.ok()) [[unlikely]] return s;
  const bool as_frame = integrity_.on
                            ? checked_.put_as_frame(len)
                            : len <= kPutFrameMax && (counters.target || counters.completion) &&
                                  peers_[tgt].path == Path::shm;
  if (as_frame) {
    return amsend_locked(tgt, kPutFrameHandler, &tgt_addr, sizeof tgt_addr, org_addr, len,
                         counters);
  }
  if (integrity_.on) [[unlikely]] {
    return checked_.put_checked_locked(tgt, len, tgt_addr, org_addr, rkey, counters);
  }
  return via_path<&PathOps::put>(tgt, len, tgt_addr, org_addr, rkey, counters);
}

Status Context::Impl::get(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                          RemoteCounter tgt_cntr, Counter* org_cntr) {
  if (Status s = check_transfer_call("get", tgt, len, tgt_addr, org_addr); !s.ok()) [[unlikely]] {
    return s;
  }
  std::unique_lock guard(lock_);
  ucp_rkey_h rkey = nullptr;
  if (Status s = transfer_rkey(guard, tgt, tgt_addr, len, rkey); !s.ok()) [[unlikely]] return s;
  if (integrity_.on && len > 0) [[unlikely]] {
    return checked_.get_checked_locked(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
  }
  return via_path<&PathOps::get>(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
}

Status Context::Impl::rmw(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int64_t operand,
                          std::int64_t compare, void* prev, unsigned width, Counter* org_cntr) {
  if (tl_header_handler_depth > 0) [[unlikely]] {
    return fail(Errc::in_header_handler, "rmw: called from inside a header handler");
  }
  if (config_.error_checking) {
    if (terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "rmw: context already terminated");
    if (tgt >= npeers()) return fail(Errc::tgt, "rmw: tgt={} is not a task (0..{})", tgt, npeers() - 1);
    if (tgt_addr == 0) return fail(Errc::tgt_var_null, "rmw: tgt_var is null");
    if (tgt_addr % width != 0) {
      return fail(Errc::tgt_var_null, "rmw: tgt_var={:#x} is not {}-byte aligned", tgt_addr, width);
    }
    if (op > RmwOp::compare_and_swap) return fail(Errc::rmw_op, "rmw: op={} is not an Rmw operation", static_cast<int>(op));
  }
  if (failures_.any_failed.load(std::memory_order_relaxed)) [[unlikely]] {
    if (Status s = check_peer("rmw", tgt); !s.ok()) return s;
  }
  if (tgt == me_) return rmw_self(op, tgt_addr, operand, compare, prev, width, org_cntr);
  ucp_rkey_h rkey = nullptr;
  Status s = remote_key(tgt, tgt_addr, width, rkey);
  if (!s.ok()) return s;
  Guard guard(lock_);
  if (integrity_.on) {
    return checked_.rmw_checked_locked(op, tgt, tgt_addr, static_cast<std::uint64_t>(operand),
                                       static_cast<std::uint64_t>(compare), prev, width, org_cntr);
  }
  return via_path<&PathOps::atomic>(tgt, op, tgt_addr, operand, compare, prev, width, rkey,
                                          org_cntr);
}

// An Rmw on our own memory (rmw_apply.hpp says why the CPU does it).
Status Context::Impl::rmw_self(RmwOp op, std::uint64_t tgt_addr, std::int64_t operand,
                               std::int64_t compare, void* prev, unsigned width,
                               Counter* org_cntr) {
  {
    Guard guard(lock_);
    if (!regions_.covers(tgt_addr, width)) {
      faults_.refused_here.fetch_add(1, std::memory_order_relaxed);
      return fail(Errc::not_registered, "rmw: task {} has no registered memory covering [{:#x}, +{})",
                  me_, tgt_addr, width);
    }
  }
  const std::uint64_t old = apply_rmw_at(op, tgt_addr, width, operand, compare);
  if (prev) std::memcpy(prev, &old, width);
  if (org_cntr) org_cntr->add();
  return Errc::success;
}

void Context::Impl::on_counter_update_locked(const CounterUpdateWire& msg) {
  (void)count_remote_locked(msg.src, msg.flags, msg.counter, msg.cookie);
}

bool Context::Impl::count_remote_locked(TaskId src, std::uint16_t flags, std::uint64_t counter_handle,
                                        std::uint64_t cookie_word) {
  if (flags & ~(kHasTargetCounter | kHasCompletion)) {
    refuse_locked(src, Errc::hdr_len, 0, fmt::format("counter update with flags {:#x}", flags));
    return false;
  }
  const std::uint64_t cookie = (flags & kHasCompletion) ? cookie_word : 0;
  Counter* counter = nullptr;
  if (flags & kHasTargetCounter) {
    if (counter_handle != last_counter_hit_ && !counter_registered_locked(counter_handle)) {
      refuse_locked(src, Errc::no_cntr_reg, cookie,
                    fmt::format("target counter {:#x} is not registered", counter_handle));
      return false;
    }
    counter = reinterpret_cast<Counter*>(counter_handle);
  }
  finish_job_locked(CompletionJob{nullptr, nullptr, nullptr, counter, src, cookie});
  return true;
}

}  // namespace lapi
