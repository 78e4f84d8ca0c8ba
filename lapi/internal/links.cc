// Striping over several network links: the sockets (links.hpp says how it works).
#include "lapi/internal/links.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "lapi/internal/sockets.hpp"
#include "runtime/internal/tcp.hpp"

namespace lapi::internal {

namespace {

constexpr std::uint64_t kHelloMagic = 0x6c617069736c6e31;  // "lapisln1"
constexpr std::size_t kHeadBytes = 16;
// Fragments: at least 64 KiB (each costs a system call on both sides), at most 32 per stripe
// (the finer, the better two links share a stripe and the less a failure resends).
constexpr std::uint64_t kMinFragment = 64 * 1024;
constexpr std::uint64_t kFragmentsPerStripe = 32;
// A link is read at most this much per poll, so one busy link does not starve the others.
constexpr std::size_t kReadBudget = 1 << 20;
constexpr std::int8_t kNotSent = -1;
constexpr std::int8_t kOverUcx = -2;
const std::byte kZeros[64 * 1024]{};

}  // namespace

Status LinkSet::open(const std::vector<std::string>& interfaces, TaskId me, std::uint64_t uid,
                     int timeout_ms, Hooks hooks) {
  me_ = me;
  uid_ = uid;
  timeout_ms_ = timeout_ms;
  hooks_ = hooks;
  for (const std::string& name : interfaces) {
    Local local;
    local.name = name;
    local.stats.interface = name;
    const InterfaceAddress address = name.empty() ? InterfaceAddress{} : interface_ipv4(name);
    local.ip = address.ip;
    local.mask = address.mask;
    if (local.ip == 0) {
      close();
      return fail(Errc::no_connectivity,
                  "init: LAPIS_LINKS names interface '{}', which this host ({}) lacks or which has "
                  "no IPv4 address",
                  name, me);
    }
    local.listen_fd = listen_ipv4(local.ip, local.port);
    if (local.listen_fd < 0) {
      const int e = errno;
      close();
      return fail(Errc::no_connectivity, "init: LAPIS_LINKS: cannot listen on {} ({}): {}", name,
                  ip_text(local.ip), std::strerror(e));
    }
    locals_.push_back(std::move(local));
  }
  if (locals_.empty()) return Errc::success;
  scratch_.resize(kMinFragment);
  on_ = true;
  return Errc::success;
}

void LinkSet::close() {
  for (Local& l : locals_) {
    if (l.listen_fd >= 0) ::close(l.listen_fd);
    l.listen_fd = -1;
  }
  for (auto& [t, peer] : peers_) {
    for (Out& o : peer.out) {
      if (o.fd >= 0) ::close(o.fd);
      o.fd = -1;
    }
  }
  for (In& in : ins_) ::close(in.fd);
  ins_.clear();
  connecting_ = 0;
  on_ = false;
}

std::vector<LinkAddress> LinkSet::addresses() const {
  std::vector<LinkAddress> out;
  for (const Local& l : locals_) out.push_back(LinkAddress{l.ip, l.mask, l.port, 0});
  return out;
}

bool LinkSet::add_peer(TaskId t, std::uint64_t uid, const std::string& host,
                       std::span<const LinkAddress> theirs) {
  Peer peer;
  peer.uid = uid;
  peer.host = host;
  std::vector<bool> taken(theirs.size());
  for (std::size_t l = 0; l < locals_.size(); ++l) {
    for (std::size_t k = 0; k < theirs.size(); ++k) {
      if (taken[k] || theirs[k].port == 0 || (theirs[k].ip & locals_[l].mask) != (locals_[l].ip & locals_[l].mask)) {
        continue;
      }
      taken[k] = true;
      Out o;
      o.local = static_cast<std::uint8_t>(l);
      o.ip = theirs[k].ip;
      o.port = theirs[k].port;
      peer.out.push_back(o);
      break;
    }
  }
  if (peer.out.empty()) return false;
  peer.live = static_cast<unsigned>(peer.out.size());
  peers_[t] = std::move(peer);
  return true;
}

void LinkSet::connect_out(TaskId t, Peer& peer, Out& o) {
  o.fd = connect_ipv4(o.ip, o.port, locals_[o.local].ip);
  if (o.fd < 0) return fail_out(t, peer, o, fmt::format("connecting to {}: {}", ip_text(o.ip), std::strerror(errno)));
  lapis::runtime::internal::detect_dead_link(o.fd, timeout_ms_);
  o.state = Out::State::connecting;
  ++connecting_;
}

void LinkSet::fail_out(TaskId t, Peer& peer, Out& o, const std::string& why) {
  if (o.state == Out::State::dead) return;
  if (o.state == Out::State::connecting) --connecting_;
  if (o.fd >= 0) ::close(o.fd);
  o.fd = -1;
  o.state = Out::State::dead;
  --peer.live;
  Local& local = locals_[o.local];
  ++local.stats.failed;
  if (!local.warned) {
    local.warned = true;
    fmt::print(stderr, "lapis[{}]: warning: link {} to task {} on {} failed ({}); its stripes go over {}\n",
               me_, local.name, t, peer.host, why, peer.live > 0 ? "the other links" : "UCX");
  }
  // What it carried for stripes that have not landed goes again: the fragment it was writing,
  // and those it wrote (the target may have them; it keeps one copy).
  const auto link = static_cast<std::int8_t>(&o - peer.out.data());
  if (o.busy) peer.todo.push_front(o.frag);
  o.busy = false;
  for (auto& [id, s] : sends_) {
    if (s.tgt != t) continue;
    for (std::uint32_t i = 0; i < s.frags; ++i) {
      if (s.link_of[i] != link) continue;
      s.link_of[i] = kNotSent;
      peer.todo.push_back(FragRef{id, i});
      ++resent_;
    }
  }
  if (peer.live == 0) over_ucx(t, peer);
}

void LinkSet::over_ucx(TaskId t, Peer& peer) {
  while (!peer.todo.empty()) {
    const FragRef f = peer.todo.front();
    peer.todo.pop_front();
    auto it = sends_.find(f.stripe);
    if (it == sends_.end()) continue;
    SendStripe& s = it->second;
    const std::uint64_t off = f.index * s.frag_bytes;
    s.link_of[f.index] = kOverUcx;
    ++over_ucx_;
    hooks_.over_ucx(hooks_.engine, t, s.token, f.index, s.data + off, std::min<std::uint64_t>(s.frag_bytes, s.len - off));
  }
}

void LinkSet::begin_send(std::uint64_t id, TaskId tgt, const void* data, std::size_t len) {
  sends_[id] = SendStripe{tgt, static_cast<const std::byte*>(data), len, 0, 0, 0, {}};
  ++stripes_sent_;
  // Connect while the frame goes and stripe_go comes back.
  Peer& peer = peers_.at(tgt);
  for (Out& o : peer.out) {
    if (o.state == Out::State::idle) connect_out(tgt, peer, o);
  }
}

bool LinkSet::go(TaskId from, std::uint64_t id, std::uint64_t token, std::uint64_t frag_bytes,
                 std::uint32_t frags) {
  auto it = sends_.find(id);
  if (it == sends_.end()) return false;
  SendStripe& s = it->second;
  if (s.tgt != from || s.token != 0 || token == 0 || frag_bytes == 0 || frag_bytes > UINT32_MAX ||
      frags != (s.len + frag_bytes - 1) / frag_bytes) {
    return false;
  }
  s.token = token;
  s.frag_bytes = frag_bytes;
  s.frags = frags;
  s.link_of.assign(frags, kNotSent);
  Peer& peer = peers_.at(from);
  for (std::uint32_t i = 0; i < frags; ++i) peer.todo.push_back(FragRef{id, i});
  pump(from, peer);
  return true;
}

void LinkSet::end_send(std::uint64_t id) {
  auto it = sends_.find(id);
  if (it == sends_.end()) return;
  // A link still writing one of its fragments finishes it with zeros (the stream must stay
  // framed; the target drops a fragment it has): the origin buffer is the caller's again.
  if (auto peer = peers_.find(it->second.tgt); peer != peers_.end()) {
    for (Out& o : peer->second.out) {
      if (o.busy && o.frag.stripe == id) o.data = nullptr;
    }
  }
  sends_.erase(it);
}

std::uint64_t LinkSet::begin_recv(TaskId src, std::uint64_t id, void* buffer, std::size_t len,
                                  const CompletionJob& job, std::uint64_t& frag_bytes,
                                  std::uint32_t& frags) {
  constexpr std::uint64_t kPage = 4096;
  const std::uint64_t share = (len + kFragmentsPerStripe - 1) / kFragmentsPerStripe;
  frag_bytes = std::max(kMinFragment, (share + kPage - 1) / kPage * kPage);
  frags = static_cast<std::uint32_t>((len + frag_bytes - 1) / frag_bytes);
  auto s = std::make_unique<RecvStripe>(RecvStripe{src, id, static_cast<std::byte*>(buffer), len,
                                                   frag_bytes, frags, frags, std::vector<bool>(frags), job});
  ++stripes_received_;
  return recvs_.insert(std::move(s));
}

std::size_t LinkSet::frag_len(const RecvStripe& s, std::uint32_t index) const {
  const std::uint64_t off = index * s.frag_bytes;
  return static_cast<std::size_t>(std::min<std::uint64_t>(s.frag_bytes, s.len - off));
}

std::byte* LinkSet::place(TaskId src, std::uint64_t token, std::uint32_t index, std::size_t len,
                          bool& valid) {
  valid = true;
  std::unique_ptr<RecvStripe>* found = recvs_.find(token);
  if (found == nullptr) return nullptr;  // landed already: a late copy
  RecvStripe& s = **found;
  if (s.src != src || index >= s.frags || len != frag_len(s, index)) {
    valid = false;
    return nullptr;
  }
  return s.have[index] ? nullptr : s.buffer + index * s.frag_bytes;
}

void LinkSet::fragment_landed(TaskId src, std::uint64_t token, std::uint32_t index) {
  std::unique_ptr<RecvStripe>* found = recvs_.find(token);
  if (found == nullptr || (*found)->src != src || index >= (*found)->frags || (*found)->have[index]) return;
  RecvStripe& s = **found;
  s.have[index] = true;
  if (--s.missing != 0) return;
  const std::unique_ptr<RecvStripe> done = std::move(*recvs_.take(token));
  hooks_.landed(hooks_.engine, done->src, done->id, done->job);
}

bool LinkSet::pump(TaskId t, Peer& peer) {
  if (peer.live == 0) {
    over_ucx(t, peer);
    return false;
  }
  bool did = false;
  bool wants = !peer.todo.empty();
  for (Out& o : peer.out) {
    if (o.state == Out::State::idle && wants) connect_out(t, peer, o);
  }
  // Round robin, one fragment per link at a time, until every link is full or nothing is left:
  // equal links share a stripe evenly, and a slower one, full sooner, takes fewer.
  for (bool moved = true; moved;) {
    moved = false;
    const std::size_t n = peer.out.size();
    for (std::size_t k = 0; k < n; ++k) {
      Out& o = peer.out[(peer.next + k) % n];
      if (o.state != Out::State::ready) continue;
      if (!o.busy) {
        auto stripe = sends_.end();
        while (!peer.todo.empty() && stripe == sends_.end()) {
          o.frag = peer.todo.front();
          peer.todo.pop_front();
          stripe = sends_.find(o.frag.stripe);
        }
        if (stripe == sends_.end()) continue;
        const SendStripe& s = stripe->second;
        const std::uint64_t off = o.frag.index * s.frag_bytes;
        o.data = s.data + off;
        o.len = static_cast<std::size_t>(std::min<std::uint64_t>(s.frag_bytes, s.len - off));
        const auto len32 = static_cast<std::uint32_t>(o.len);
        std::memcpy(o.head, &s.token, 8);
        std::memcpy(o.head + 8, &o.frag.index, 4);
        std::memcpy(o.head + 12, &len32, 4);
        o.written = 0;
        o.busy = true;
        peer.next = static_cast<unsigned>((&o - peer.out.data() + 1) % n);
      }
      if (write_some(t, peer, o)) moved = did = true;
      if (peer.live == 0) return did;  // write_some failed the last link: over_ucx took the rest
    }
  }
  return did;
}

bool LinkSet::write_some(TaskId t, Peer& peer, Out& o) {
  while (o.written < kHeadBytes + o.len) {
    iovec iov[2];
    int n = 0;
    if (o.written < kHeadBytes) iov[n++] = {o.head + o.written, kHeadBytes - o.written};
    const std::size_t done = o.written > kHeadBytes ? o.written - kHeadBytes : 0;
    std::size_t left = o.len - done;
    const std::byte* from = o.data != nullptr ? o.data + done : kZeros;
    if (o.data == nullptr) left = std::min(left, sizeof kZeros);
    if (left > 0) iov[n++] = {const_cast<std::byte*>(from), left};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<std::size_t>(n);
    const ssize_t w = ::sendmsg(o.fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) fail_out(t, peer, o, std::strerror(errno));
      return false;
    }
    o.written += static_cast<std::size_t>(w);
  }
  o.busy = false;
  Local& local = locals_[o.local];
  local.stats.bytes_sent += o.len;
  ++local.stats.fragments_sent;
  if (auto it = sends_.find(o.frag.stripe); it != sends_.end()) {
    it->second.link_of[o.frag.index] = static_cast<std::int8_t>(&o - peer.out.data());
  }
  return true;
}

bool LinkSet::read_some(In& in) {
  std::size_t budget = kReadBudget;
  while (budget > 0) {
    if (in.src == kUnknown || !in.in_data) {
      const ssize_t r = ::recv(in.fd, in.head + in.head_got, kHeadBytes - in.head_got, MSG_DONTWAIT);
      if (r == 0) return false;
      if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      in.head_got += static_cast<std::size_t>(r);
      if (in.head_got < kHeadBytes) continue;
      in.head_got = 0;
      if (in.src == kUnknown) {  // the hello: who writes here
        std::uint64_t magic = 0, uid = 0;
        std::memcpy(&magic, in.head, 8);
        std::memcpy(&uid, in.head + 8, 8);
        auto from = std::find_if(peers_.begin(), peers_.end(), [uid](const auto& p) { return p.second.uid == uid; });
        if (magic != kHelloMagic || uid == 0 || from == peers_.end()) return false;
        in.src = from->first;
        continue;
      }
      std::uint32_t len32 = 0;
      std::memcpy(&in.token, in.head, 8);
      std::memcpy(&in.index, in.head + 8, 4);
      std::memcpy(&len32, in.head + 12, 4);
      bool valid = true;
      (void)place(in.src, in.token, in.index, len32, valid);
      if (!valid) return false;  // not our protocol: the writer hears of it as a failed link
      in.len = len32;
      in.got = 0;
      in.in_place = true;
      in.in_data = true;
    }
    if (in.got < in.len) {
      bool valid = true;
      std::byte* at = place(in.src, in.token, in.index, in.len, valid);
      std::size_t want = std::min(in.len - in.got, budget);
      if (at != nullptr) {
        at += in.got;
      } else {  // landed meanwhile over another link or UCX: drop this copy
        in.in_place = false;
        at = scratch_.data();
        want = std::min(want, scratch_.size());
      }
      const ssize_t r = ::recv(in.fd, at, want, MSG_DONTWAIT);
      if (r == 0) return false;
      if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      in.got += static_cast<std::size_t>(r);
      budget -= std::min(budget, static_cast<std::size_t>(r));
    }
    if (in.got == in.len) {
      in.in_data = false;
      if (in.in_place) fragment_landed(in.src, in.token, in.index);
    }
  }
  return true;
}

void LinkSet::add_pollfds(std::vector<pollfd>& fds) const {
  for (const Local& l : locals_) fds.push_back(pollfd{l.listen_fd, POLLIN, 0});
  for (const In& in : ins_) fds.push_back(pollfd{in.fd, POLLIN, 0});
  for (const auto& [t, peer] : peers_) {
    for (const Out& o : peer.out) {
      if (o.fd < 0) continue;
      const bool writes = o.state == Out::State::connecting || o.busy || !peer.todo.empty();
      fds.push_back(pollfd{o.fd, static_cast<short>(writes ? POLLOUT : 0), 0});
    }
  }
}

bool LinkSet::progress() {
  fds_.clear();
  add_pollfds(fds_);
  if (fds_.empty() || ::poll(fds_.data(), fds_.size(), 0) <= 0) return false;
  bool did = false;
  std::size_t at = 0;
  // The same order as add_pollfds: listeners, connections in, connections out.
  std::vector<int> accepted;
  for (const Local& l : locals_) {
    if (fds_[at++].revents & POLLIN) {
      for (int fd; (fd = ::accept4(l.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        lapis::runtime::internal::detect_dead_link(fd, timeout_ms_);
        accepted.push_back(fd);
      }
    }
  }
  for (In& in : ins_) {
    if (fds_[at++].revents == 0) continue;
    did = true;
    if (!read_some(in)) {
      ::close(in.fd);
      in.fd = -1;
    }
  }
  std::erase_if(ins_, [](const In& in) { return in.fd < 0; });
  for (int fd : accepted) ins_.push_back(In{fd});
  for (auto& [t, peer] : peers_) {
    for (Out& o : peer.out) {
      if (o.fd < 0) continue;
      const short revents = fds_[at++].revents;
      if (revents == 0) continue;
      did = true;
      int error = 0;
      socklen_t len = sizeof error;
      if ((revents & (POLLERR | POLLHUP)) != 0 || o.state == Out::State::connecting) {
        ::getsockopt(o.fd, SOL_SOCKET, SO_ERROR, &error, &len);
      }
      if (error != 0 || (revents & (POLLERR | POLLHUP)) != 0) {
        fail_out(t, peer, o, error != 0 ? std::strerror(error) : "connection closed");
        continue;
      }
      if (o.state == Out::State::connecting) {  // connected: say who writes here
        const std::uint64_t hello[2] = {kHelloMagic, uid_};
        const bool said = ::send(o.fd, hello, sizeof hello, MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof hello;
        --connecting_;
        o.state = Out::State::ready;
        if (!said) fail_out(t, peer, o, "cannot send its hello");
      }
    }
    if (!peer.todo.empty() || std::any_of(peer.out.begin(), peer.out.end(), [](const Out& o) { return o.busy; })) {
      did |= pump(t, peer);
    }
  }
  return did;
}

void LinkSet::drop_peer(TaskId t) {
  if (auto it = peers_.find(t); it != peers_.end()) {
    for (Out& o : it->second.out) {
      if (o.state == Out::State::connecting) --connecting_;
      if (o.fd >= 0) ::close(o.fd);
      o = Out{o.local, o.ip, o.port, Out::State::dead};
    }
    it->second.live = 0;
    it->second.todo.clear();
  }
  std::erase_if(sends_, [t](const auto& entry) { return entry.second.tgt == t; });
  recvs_.erase_if([t](const std::unique_ptr<RecvStripe>& r) { return r->src == t; });
}

LinkStats LinkSet::stats() const {
  LinkStats s;
  for (const Local& l : locals_) s.links.push_back(l.stats);
  s.stripes_sent = stripes_sent_;
  s.stripes_received = stripes_received_;
  s.fragments_resent = resent_;
  s.fragments_over_ucx = over_ucx_;
  s.peers = static_cast<std::uint32_t>(peers_.size());
  return s;
}

}  // namespace lapi::internal
