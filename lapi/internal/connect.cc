// Connecting at init: each task publishes its card (peer_card.hpp), reads every other's, and
// chooses its path to each once (Nexus' per-peer method): itself; the same host's shared-memory
// rings; or UCX, with every transport or, where LAPIS_TRANSPORTS or a LAPIS_PATHS rule asks for
// TCP, with the peer's network-only address, so that UCX cannot take its shared memory.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "lapi/internal/engine.hpp"
#include "lapi/internal/path_rules.hpp"
#include "lapi/internal/peer_card.hpp"
#include "runtime/bootstrap.hpp"

namespace lapi {

using namespace internal;

namespace {

// A task's identity: 64 random bits (never 0), so that two tasks clash with odds of about
// n^2 / 2^65 for n tasks that ever meet.
std::uint64_t draw_uid() {
  std::random_device device;
  std::uint64_t uid = 0;
  while (uid == 0) uid = (std::uint64_t{device()} << 32) ^ device();
  return uid;
}

// The interface the link watch listens on: UCX's (LAPIS_NET_IF, or the first of
// UCX_NET_DEVICES without its port), else the first one up.
std::string watch_interface(const std::string& net_if) {
  if (!net_if.empty()) return net_if;
  const char* devices = std::getenv("UCX_NET_DEVICES");
  if (devices == nullptr || std::strcmp(devices, "all") == 0) return {};
  std::string first(devices, std::strcspn(devices, ",:"));
  return first;
}

std::string host_name() {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

Status Context::Impl::connect_peers(lapis::runtime::Bootstrap& boot) {
  PeerCard mine;
  if (Status s = worker_address(worker_, false, mine.ucx_address); !s.ok()) return s;
  if ((config_.transports & kTransportTcp) != 0) {
    if (Status s = worker_address(worker_, true, mine.ucx_net_address); !s.ok()) return s;
  }
  if (config_.shm && (config_.transports & kTransportShm) != 0 && ntasks_ > 1) {
    // Without shared memory (no /dev/shm, say) every message goes through UCX.
    std::string why;
    // A task that starts in interrupt mode sleeps on nearly every wait (its
    // progress thread): a membarrier per sleep cost the interrupt test
    // 11-12 -> 24-25 us at 8 B (its interrupts land on the busy sender's
    // core). Its senders keep their barrier instead (shm_channel.hpp).
    if (config_.mode == ProgressMode::interrupt) shm_.forgo_membarrier();
    shm_.enable_stages();  // sparse pages: memory only where staged copy runs
    (void)shm_.create(me_, ntasks_, mine.shm, why);
  }
  mine.shm.node = node_identity();  // with or without an inbox: which peers are on other hosts
  mine.split = split_address();
  mine.host = host_name();
  mine.uid = draw_uid();
  if (Status s = open_links(mine.uid); !s.ok()) return s;
  mine.links = links_.addresses();
  if (boot.kind() == "pmix") {  // no launcher of ours watches the hosts
    if (Status s = watch_.listen(watch_interface(net_if_)); !s.ok()) return s;
    mine.watch_ip = watch_.ip();
    mine.watch_port = watch_.port();
  }

  std::vector<std::vector<std::byte>> all;
  try {
    all = boot.allgather(pack_card(mine));
  } catch (const std::exception& e) {
    return fail(Errc::bootstrap, "init: address exchange: {}", e.what());
  }
  std::vector<PeerCard> cards(ntasks_);
  std::vector<std::string> hosts;
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    if (!unpack_card(all[t], cards[t])) {
      return fail(Errc::bootstrap, "init: task {} published {} bytes that are not its card", t,
                  all[t].size());
    }
    hosts.push_back(cards[t].host);
  }
  std::vector<PathRule> written;
  PathRules rules;
  if (!config_.paths.empty()) {
    if (Status s = parse_path_rules(config_.paths, written); !s.ok()) return s;
  }
  if (Status s = PathRules::resolve(written, hosts, rules); !s.ok()) return s;

  peers_ = std::vector<Peer>(ntasks_);
  peers_.reserve(ntasks_ + kMaxJoinedTasks);  // join_tasks appends without moving an entry
  for (Peer& peer : peers_) peer.id_there = me_;
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    peers_[t].uid = cards[t].uid;
    tasks_by_uid_[cards[t].uid] = t;
  }
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    if (Status s = choose_path(t, cards[t], mine, rules); !s.ok()) return s;
    // Large Amsends to a task on another host: striped over the links we share, if any.
    peers_[t].stripes = peers_[t].other_host && links_.enabled() &&
                        links_.add_peer(t, cards[t].uid, cards[t].host, cards[t].links);
  }
  note_oversubscription();
  raise_split_min_if_cma_slow();
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    const PeerCard& card = cards[t];
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t*>(
        peers_[t].over_tcp && !card.ucx_net_address.empty() ? card.ucx_net_address.data()
                                                            : card.ucx_address.data());
    // A peer on another host can vanish with its link and no launcher to say so (under PMIx):
    // UCX then fails its operations and tells us, rather than retrying for ever. Within a
    // host the launcher (or the process's exit) is the word, and UCX keeps every transport.
    if (peers_[t].other_host) {
      ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
      ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      ep.err_handler.cb = &Impl::on_endpoint_error;
      ep.err_handler.arg = this;
    }
    if (ucs_status_t st = ucp_ep_create(worker_, &ep, &peers_[t].ep); st != UCS_OK) {
      return fail(Errc::no_connectivity, "init: cannot connect to task {}: {}", t,
                  ucs_status_string(st));
    }
  }
  npeers_.store(ntasks_, std::memory_order_release);
  return watch_other_hosts(cards);  // nothing unless the watch listens (under PMIx)
}

// More of the job's tasks on this host than cores online: they take turns on the cores, and
// a task waiting for another must let it run. Waiters then yield early (IdleSpin), and split
// copy is left off: it pays when origin and target copy at the same time, each on a core of its
// own; taking turns instead, the claiming and control messages are overhead: 4 and 8 ranks on 2
// cores, all-to-all through point-to-point (mpi_coll, 3 runs, us), 256 KiB per peer 173-180
// without against 186-192 with (4 ranks), 1089-1094 / 1161-1307 (8 ranks); 2 MiB 2048-2320 /
// 2192-2666 (4 ranks). (NPB IS at 4 ranks moved within its run-to-run spread.) Every task of a
// host counts alike, so all of them leave it. LAPIS_SPLIT_COPY=1 keeps it.
void Context::Impl::note_oversubscription() {
  long here = 0;
  for (std::uint32_t t = 0; t < ntasks_; ++t) here += !peers_[t].other_host;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const bool oversubscribed = cores > 0 && here > cores;
  if (oversubscribed) waiters_yield_early_.store(true, std::memory_order_relaxed);
  if (!oversubscribed || !config_.split_copy || config_.split_copy_always) return;
  config_.split_copy = false;  // what qenv(split_copy) reports
  for (Peer& peer : peers_) peer.split = false;
}

Status Context::Impl::watch_other_hosts(const std::vector<PeerCard>& cards) {
  std::vector<LinkWatch::Peer> others;
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    if (peers_[t].other_host && cards[t].watch_ip != 0 && watch_.ip() != 0) {
      others.push_back(LinkWatch::Peer{t, cards[t].uid, cards[t].watch_ip, cards[t].watch_port});
    }
  }
  if (others.empty()) return Errc::success;
  int timeout_ms = 0;
  if (Status s = link_timeout(timeout_ms); !s.ok()) return s;
  return watch_.start(me_, peers_[me_].uid, others, timeout_ms, [this](TaskId t, const std::string& why) {
    note_peer_failure(static_cast<int>(t), why);
  });
}

Status Context::Impl::choose_path(TaskId t, const PeerCard& card, const PeerCard& mine,
                                  const PathRules& rules) {
  Peer& peer = peers_[t];
  peer.other_host = card.shm.node != mine.shm.node;
  if (peer.other_host && (config_.transports & kTransportTcp) == 0) {
    return fail(
        Errc::no_connectivity,
        "init: task {} is on another host ({}), and LAPIS_TRANSPORTS=shm reaches no other host "
        "(allow tcp too)",
        t, card.host);
  }
  std::string rule;
  const std::optional<PairMethod> asked =
      t == me_ ? std::nullopt : rules.lookup(mine.host, card.host, &rule);
  if (asked == PairMethod::shm && peer.other_host) {
    return fail(
        Errc::no_connectivity,
        "init: LAPIS_PATHS rule '{}' asks for shm between {} and {}, which are different hosts "
        "(task {} is on {})",
        rule, mine.host, card.host, t, card.host);
  }
  if (asked == PairMethod::tcp && (config_.transports & kTransportTcp) == 0) {
    return fail(Errc::no_connectivity,
                "init: LAPIS_PATHS rule '{}' asks for tcp, which LAPIS_TRANSPORTS leaves out",
                rule);
  }
  // Always watched, so that a peer that chose its ring to us is heard whatever we chose.
  if (t != me_) {
    shm_.attach(t, card.shm);
    probe_split_peer(t, card.split);
  }
  // UCX kept to TCP: the job (start() set UCX's transports so) or the pair (a rule: the peer's
  // network-only address). Otherwise UCX picks (its shared memory between network namespaces
  // of one kernel, say, and TCP between real hosts).
  peer.over_tcp =
      t != me_ && (ucx_tcp_only_ || (asked == PairMethod::tcp && !card.ucx_net_address.empty()));
  peer.host = card.host;
  // The path, once: nothing re-derives it per message.
  peer.path = t == me_                                      ? Path::self
              : asked != PairMethod::tcp && shm_.reaches(t) ? Path::shm
                                                            : Path::ucx;
  // Large Amsends to it by split copy: the rings' path, and its memory reachable.
  peer.split = peer.path == Path::shm && peer.split_pid != 0;
  return Errc::success;
}

}  // namespace lapi
