// Jobs that connect: tasks of another job join this context (Context::join_tasks), numbered
// after the job's own tasks, and leave it again (leave_tasks).
//
// Each task numbers the tasks it joined itself, so two tasks of one job may number a third
// differently, and a task of the other job numbers us in its own way. Every message carries
// its sender's id as its first word; towards a joined task that word is the id it gave us
// (Peer::id_there, written by post_op_locked and the immediate Amsend), so the receiving
// side needs no translation. A joined task is always reached through UCX (its shared-memory
// rings and split copy belong to another job), with peer error handling, so that the other
// job ending is an error for what waits on it, not a hang.
#include <unistd.h>

#include <cstring>

#include "lapi/internal/engine.hpp"
#include "lapi/internal/peer_card.hpp"
#include "lapi/link.hpp"

namespace lapi {

using namespace internal;

namespace {

// Tries of leave_locked's goodbye while the transport is busy (each with a progress call).
constexpr int kGoodbyeAttempts = 10000;

// What accept_link runs between waits: this context's progress, then the caller's question.
struct AcceptIdle {
  Context* ctx;
  bool (*keep_waiting)(void*);
  void* arg;
};

bool run_probe(void* p) {
  auto* idle = static_cast<AcceptIdle*>(p);
  (void)idle->ctx->probe();
  return idle->keep_waiting == nullptr || idle->keep_waiting(idle->arg);
}

}  // namespace

std::uint32_t Context::num_peers() const { return impl_->npeers(); }

std::uint64_t Context::task_uid(TaskId task) const {
  Impl& e = *impl_;
  return task < e.npeers() ? e.peers_[task].uid : 0;
}

bool Context::task_of_uid(std::uint64_t uid, TaskId& task) const {
  Impl& e = *impl_;
  Guard guard(e.lock_);
  const auto it = e.tasks_by_uid_.find(uid);
  if (uid == 0 || it == e.tasks_by_uid_.end() || e.peers_[it->second].left) return false;
  task = it->second;
  return true;
}

Status Context::join_card(std::vector<std::byte>& out) const {
  Impl& e = *impl_;
  if (e.terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "join_card: context already terminated");
  // A peer card (peer_card.hpp) without rings or split copy.
  PeerCard card;
  // The network-only address when UCX is kept to TCP here (LAPIS_TRANSPORTS=tcp).
  if (Status s = worker_address(e.worker_, e.ucx_tcp_only_, card.ucx_address); !s.ok()) return s;
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  card.host = host;
  card.uid = e.peers_[e.me_].uid;
  out = pack_card(card);
  return Errc::success;
}

Status Context::join_tasks(std::span<const std::vector<std::byte>> cards, TaskId& first) {
  Impl& e = *impl_;
  if (e.terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "join_tasks: context already terminated");
  if (e.integrity_.on) {
    return fail(Errc::set_val, "join_tasks: LAPIS_CHECKSUM is on; tasks of another job cannot join (yet)");
  }
  if (cards.empty()) return fail(Errc::parm_null, "join_tasks: no cards");
  std::vector<PeerCard> parsed(cards.size());
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (!unpack_card(cards[i], parsed[i])) {
      return fail(Errc::set_val, "join_tasks: card {} ({} bytes) is not a join card", i, cards[i].size());
    }
  }
  Guard guard(e.lock_);
  first = e.npeers_.load(std::memory_order_relaxed);
  if (first + cards.size() > e.ntasks_ + Impl::kMaxJoinedTasks) {
    return fail(Errc::memory_exhausted, "join_tasks: {} more tasks exceed the {} tasks of other jobs a context holds",
                cards.size(), Impl::kMaxJoinedTasks);
  }
  for (std::size_t i = 0; i < cards.size(); ++i) {
    const auto id = first + static_cast<std::uint32_t>(i);
    Peer peer;
    peer.path = Path::ucx;
    peer.other_host = true;
    peer.joined = true;
    peer.host = parsed[i].host;
    peer.uid = parsed[i].uid;
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t*>(parsed[i].ucx_address.data());
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &Impl::on_endpoint_error;
    ep.err_handler.arg = &e;
    if (ucs_status_t st = ucp_ep_create(e.worker_, &ep, &peer.ep); st != UCS_OK) {
      // Ids are never reused: those joined so far are left at once, numbered but refused.
      for (TaskId t = first; t < id; ++t) e.leave_locked(t, false);
      return fail(Errc::no_connectivity, "join_tasks: cannot connect to task {} of the other job ({}): {}",
                  i, peer.host, ucs_status_string(st));
    }
    // A task known already keeps its id while that one has not left (joined again by
    // MPI_Intercomm_create, it gets a second id only that communicator uses).
    const auto [known, fresh] = e.tasks_by_uid_.try_emplace(peer.uid, id);
    if (!fresh && e.peers_[known->second].left) known->second = id;
    e.peers_.push_back(std::move(peer));  // capacity reserved at start(): nothing moves
    e.npeers_.store(id + 1, std::memory_order_release);
  }
  return Errc::success;
}

Status Context::name_joined(TaskId first, std::span<const TaskId> ids_there) {
  Impl& e = *impl_;
  Guard guard(e.lock_);
  const std::uint32_t n = e.npeers();
  if (ids_there.empty() || first >= n || ids_there.size() > n - first) {
    return fail(Errc::tgt, "name_joined: tasks {}..{} are not all tasks here (0..{})", first,
                first + ids_there.size() - 1, n - 1);
  }
  for (std::size_t i = 0; i < ids_there.size(); ++i) {
    if (!e.peers_[first + i].joined) return fail(Errc::tgt, "name_joined: task {} is of this job, not joined", first + i);
  }
  for (std::size_t i = 0; i < ids_there.size(); ++i) e.peers_[first + i].id_there = ids_there[i];
  return Errc::success;
}

Status Context::leave_tasks(TaskId first, std::uint32_t count) {
  Impl& e = *impl_;
  const std::uint32_t n = e.npeers();
  if (count == 0 || first >= n || count > n - first) {
    return fail(Errc::tgt, "leave_tasks: tasks {}..{} are not all tasks here (0..{})", first,
                first + count - 1, n - 1);
  }
  for (TaskId t = first; t < first + count; ++t) {
    if (!e.peers_[t].joined) return fail(Errc::tgt, "leave_tasks: task {} is of this job, not joined", t);
  }
  Guard guard(e.lock_);
  for (TaskId t = first; t < first + count; ++t) e.leave_locked(t, true);
  return Errc::success;
}

void Context::Impl::leave_locked(TaskId t, bool goodbye) {
  Peer& peer = peers_[t];
  if (peer.ep == nullptr) return;
  peer.left = true;
  // Operations naming it are refused from now on, as for a failed task, without the failure
  // handlers: leaving is not a failure.
  failures_.mark_left(t);
  for (auto& [base, r] : peer.remote_regions) ucp_rkey_destroy(r.rkey);
  peer.remote_regions.clear();
  peer.rkey_hit = RkeyHit{};
  ucp_ep_h ep = peer.ep;
  peer.ep = nullptr;
  if (goodbye) {
    // Handed to the transport before the endpoint closes (a forced close drops what UCX still
    // holds): the other task then takes our endpoint's end for leaving, not for a failure.
    const GoodbyeWire bye{peer.id_there, 0};
    ucp_request_param_t now;
    now.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    now.flags = UCP_AM_SEND_FLAG_EAGER;
    for (int attempt = 0; attempt < kGoodbyeAttempts; ++attempt) {
      ucs_status_ptr_t r = ucp_am_send_nbx(ep, static_cast<unsigned>(Proto::goodbye), &bye, sizeof bye,
                                           nullptr, 0, &now);
      if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) break;
      ucp_worker_progress(worker_);
    }
  }
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  // Forced: local, needing nothing from the other side, which may be leaving too or gone. What
  // must land first is the caller's to fence (MPI_Comm_disconnect's barrier comes after every
  // operation between the two groups completed).
  p.flags = UCP_EP_CLOSE_FLAG_FORCE;
  ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
  while (r != nullptr && !UCS_PTR_IS_ERR(r) && ucp_request_check_status(r) == UCS_INPROGRESS) {
    ucp_worker_progress(worker_);
  }
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) ucp_request_free(r);
}

void Context::Impl::on_goodbye_locked(const GoodbyeWire& msg) {
  if (!peers_[msg.src].joined) {
    refuse_locked(msg.src, Errc::tgt, 0, "goodbye from a task of this job");
    return;
  }
  failures_.mark_left(msg.src);
}

void Context::Impl::leave_joined_locked() {
  for (TaskId t = ntasks_; t < npeers(); ++t) leave_locked(t, false);
}

Status Context::open_port(std::string& name) { return PortTable::open(impl_->net_if_, name); }

Status Context::close_port(std::string_view name) { return PortTable::close(name); }

Status Context::accept_link(std::string_view port, std::unique_ptr<Link>& out,
                            bool (*keep_waiting)(void*), void* arg) {
  // Waiting for the other job, this task still answers its own job's traffic.
  AcceptIdle idle{this, keep_waiting, arg};
  return PortTable::accept(port, &run_probe, &idle, out);
}

Status Context::connect_link(std::string_view port, std::unique_ptr<Link>& out) {
  return PortTable::connect(port, out);
}

}  // namespace lapi
