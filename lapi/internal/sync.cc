// Fence, barrier and address_init.
//
// Fence: UCX's flush covers RMA and atomics but not active messages, so each
// task counts the Amsends it sent to every peer, and each peer counts those
// that landed; a fence asks every peer "tell me when you have landed N of
// mine" and flushes the worker for RMA. Nothing is added to the Amsend hot
// path. Barrier: dissemination over control messages, ceil(log2 n) rounds.

#include <algorithm>
#include <bit>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

Status Context::Impl::fence() { return fence_tasks(0, npeers()); }

Status Context::Impl::fence_tasks(TaskId first, TaskId end) {
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "fence: called from inside a header handler");
  }
  std::vector<std::uint64_t> want(end, 0);
  {
    Guard guard(lock_);
    for (TaskId t = first; t < end; ++t) {
      if (peers_[t].sent_to == peers_[t].fence_acked || failures_.failed[t].load(std::memory_order_relaxed)) continue;
      want[t] = peers_[t].sent_to;
      const FenceWire req{me_, 0, peers_[t].sent_to};
      send_control_locked(t, Proto::fence_request, &req, sizeof req);
    }
  }
  // The whole worker when this fence covers every task and none failed;
  // otherwise the endpoints of the fence's live tasks one by one. What UCX
  // holds for a failed task may never leave (free_ucx_sends_to_locked), and
  // a flush of the whole worker would wait for it forever; and a task of a
  // job that connected (join.cc) may have gone without a word while this
  // job fences only itself (at term): a flush of its endpoint fails, which
  // must not fail this job's fence.
  std::vector<ucs_status_ptr_t> flushes;
  {
    Guard guard(lock_);
    ucp_request_param_t p{};
    if (first == 0 && end == npeers() && !failures_.any_failed.load(std::memory_order_acquire)) {
      flushes.push_back(ucp_worker_flush_nbx(worker_, &p));
    } else {
      for (TaskId t = first; t < end; ++t) {
        if (peers_[t].ep != nullptr && !failures_.failed[t].load(std::memory_order_relaxed))
          flushes.push_back(ucp_ep_flush_nbx(peers_[t].ep, &p));
      }
    }
  }
  bool flushed = true;
  for (ucs_status_ptr_t flush : flushes) flushed = wait_request(flush) == UCS_OK && flushed;
  if (!flushed) return fail(Errc::transport, "fence: flush failed");
  return wait_for_job([&] {
    Guard guard(lock_);
    for (TaskId t = first; t < end; ++t) {
      if (peers_[t].fence_acked < want[t] && !failures_.failed[t].load(std::memory_order_relaxed)) return false;
    }
    // A landed split Amsend's split_done may come through the ring, after
    // the fence reply (through UCX): its origin buffer is free only then.
    if (split_.sends.live() != 0 && split_.sends.any_of([&](const SplitSend* op) {
          return op->tgt >= first && op->tgt < end &&
                 !failures_.failed[op->tgt].load(std::memory_order_relaxed);
        })) {
      return false;
    }
    // LAPIS_CHECKSUM: a Put or Get is complete once its data checked.
    return integrity_.held_puts.empty() && integrity_.held_gets.empty();
  });
}

Status Context::Impl::flush_rma(TaskId tgt) {
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "flush_rma: called from inside a header handler");
  }
  if (tgt >= npeers()) return fail(Errc::tgt, "flush_rma: tgt={} is not a task (0..{})", tgt, npeers() - 1);
  if (integrity_.on) return fence();  // held (checked) Puts and Gets complete there
  return via_path<&PathOps::flush>(tgt);
}

void Context::Impl::on_fence_request_locked(const FenceWire& msg) {
  peers_[msg.src].fence_wanted = std::max(peers_[msg.src].fence_wanted, msg.count);
  check_fence_requests_locked(msg.src);
}

void Context::Impl::check_fence_requests_locked(TaskId src) {
  const std::uint64_t wanted = peers_[src].fence_wanted;
  if (wanted == 0 || peers_[src].landed_from < wanted) return;
  peers_[src].fence_wanted = 0;
  const FenceWire reply{me_, 0, wanted};
  send_control_locked(src, Proto::fence_reply, &reply, sizeof reply);
}

void Context::Impl::on_fence_reply_locked(const FenceWire& msg) {
  peers_[msg.src].fence_acked = std::max(peers_[msg.src].fence_acked, msg.count);
}

Status Context::Impl::barrier() {
  if (ntasks_ == 1) return Errc::success;
  if (failures_.any_job_failed.load(std::memory_order_acquire)) [[unlikely]] {
    return failed_peer_error("barrier", failures_.last_failed.load(std::memory_order_acquire));
  }
  std::uint64_t epoch;
  {
    Guard guard(lock_);
    epoch = ++sync_.barrier_epoch;
  }
  const unsigned rounds = std::bit_width(ntasks_ - 1);
  for (unsigned r = 0; r < rounds; ++r) {
    {
      Guard guard(lock_);
      const TaskId to = (me_ + (1u << r)) % ntasks_;
      const BarrierWire msg{me_, r, epoch};
      send_control_locked(to, Proto::barrier, &msg, sizeof msg);
    }
    Status s = wait_for_job([&] {
      Guard guard(lock_);
      return sync_.take_barrier_arrival(epoch, r);
    });
    if (!s.ok()) return s;
  }
  return Errc::success;
}

void Context::Impl::on_barrier_locked(const BarrierWire& msg) {
  if (msg.round >= SyncState::kMaxBarrierRounds) {
    refuse_locked(msg.src, Errc::hdr_len, 0, fmt::format("barrier round {} out of range", msg.round));
    return;
  }
  ++sync_.barrier_arrivals[msg.epoch & 1][msg.round];
}

Status Context::Impl::address_init(std::uint64_t mine, std::span<std::uint64_t> out) {
  if (out.size() != ntasks_) {
    return fail(Errc::parm_null, "address_init: out has {} slots, need num_tasks={}", out.size(), ntasks_);
  }
  std::uint64_t epoch;
  {
    Guard guard(lock_);
    epoch = ++sync_.addr_epoch;
    (void)sync_.note_addr(epoch, ntasks_, me_, mine);
    for (TaskId t = 0; t < ntasks_; ++t) {
      if (t == me_) continue;
      const AddressInitWire msg{me_, 0, epoch, mine};
      send_control_locked(t, Proto::address_init, &msg, sizeof msg);
    }
  }
  // A task may send its value, finish the round and fail before this one
  // has the value in hand (MPICH's test/mpi/ft tests exit right after
  // MPI_Init): what it sent still lands, so after a failure the round is
  // over once every live task's value is here and what had landed is taken
  // in. A failed task's value may still be missing (its message may never
  // have left: UCX sends in the background): the caller gets
  // tgt_purged and may carry on without it.
  bool complete = false;
  const auto settled = [&] {
    Guard guard(lock_);
    const SyncState::AddrRound& round = sync_.addr_rounds[epoch];
    complete = round.arrived >= ntasks_ - 1;
    if (complete) return true;
    if (!failures_.any_job_failed.load(std::memory_order_acquire)) return false;
    for (TaskId t = 0; t < ntasks_; ++t) {
      if (!round.got[t] && !failures_.failed[t].load(std::memory_order_acquire)) return false;
    }
    return true;
  };
  for (;;) {
    const Status s = wait_until(settled);
    if (s.ok() && complete) break;
    if (!s.ok() && s.code() != Errc::tgt_purged) return s;
    drain_landed();
    if (settled()) break;
  }
  Guard guard(lock_);
  auto node = sync_.addr_rounds.extract(epoch);
  std::copy(node.mapped().values.begin(), node.mapped().values.end(), out.begin());
  if (complete) return Errc::success;
  const auto& got = node.mapped().got;
  const auto missing = static_cast<TaskId>(std::find(got.begin(), got.end(), false) - got.begin());
  return failed_peer_error("address_init", missing);
}

void Context::Impl::drain_landed() {
  const bool announced = progress_.enter_wait();
  // Bounded: a poll also counts resumed fibers and held checks as work.
  for (int polls = 0; polls < kDrainPollsBeforeFailure && poll_once(); ++polls) {
  }
  progress_.leave_wait(announced);
}

void Context::Impl::on_address_init_locked(const AddressInitWire& msg) {
  if (!sync_.expects_addr_round(msg.epoch)) {
    refuse_locked(msg.src, Errc::hdr_len, 0, fmt::format("address_init round {} unexpected", msg.epoch));
    return;
  }
  ++sync_.note_addr(msg.epoch, ntasks_, msg.src, msg.value).arrived;
}

}  // namespace lapi
