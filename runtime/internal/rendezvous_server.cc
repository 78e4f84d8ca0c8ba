#include "runtime/internal/rendezvous_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <cstdio>

#include "runtime/internal/tcp.hpp"

namespace lapis::runtime::internal {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

// The rank's own kernel answered: the process ended with data unread (a reset) or the pipe
// broke. That is an exit or a crash, which the reap (or the rank's agent) reports with its
// status; only errors that mean no answer came back are a lost link (connection_failed).
bool peer_process_gone(int error) { return error == ECONNRESET || error == EPIPE; }

std::string describe(MsgType type, std::uint32_t seq) {
  return std::string(msg_type_name(type)) + " #" + std::to_string(seq);
}

}  // namespace

RendezvousServer::RendezvousServer(UniqueFd listener, int size, std::string secret,
                                   bool continue_on_failure, int link_timeout_ms)
    : listener_(std::move(listener)),
      size_(size),
      secret_(std::move(secret)),
      continue_on_failure_(continue_on_failure),
      link_timeout_ms_(link_timeout_ms),
      gone_(static_cast<std::size_t>(size), false),
      by_rank_(static_cast<std::size_t>(size), nullptr),
      rank_seen_(static_cast<std::size_t>(size), false),
      aborted_(static_cast<std::size_t>(size)),
      leave_call_(static_cast<std::size_t>(size)) {
  set_nonblocking(listener_.get());
}

RendezvousServer::~RendezvousServer() = default;

void RendezvousServer::append_pollfds(std::vector<pollfd>& fds) {
  fds.push_back({listener_.get(), POLLIN, 0});
  for (const auto& conn : connections_) {
    const short events = static_cast<short>(POLLIN | (conn->out.empty() ? 0 : POLLOUT));
    fds.push_back({conn->fd.get(), events, 0});
  }
  polled_ = connections_.size();
}

void RendezvousServer::handle_events(std::span<const pollfd> fds) {
  // Connections accepted or removed below must not shift the slice we were handed, so new ones
  // are appended only after this loop and dead ones erased at the very end.
  for (std::size_t i = 0; i < polled_ && i + 1 < fds.size(); ++i) {
    Connection& conn = *connections_[i];
    const short revents = fds[i + 1].revents;
    if (!conn.dead && (revents & (POLLIN | POLLHUP | POLLERR))) read_from(conn);
    if (!conn.dead && (revents & POLLOUT)) write_to(conn);
  }
  if (!fds.empty() && (fds[0].revents & POLLIN)) accept_connections();
  std::erase_if(connections_, [](const auto& conn) { return conn->dead; });
}

void RendezvousServer::mark_rank_gone(int rank, const std::string& why) {
  // The connection (if any) closes by itself; the rank can no longer take part.
  if (continue_on_failure_) return drop_rank(rank, why);
  break_collectives(why);
}

void RendezvousServer::drop_rank(int rank, const std::string& why) {
  if (rank < 0 || rank >= size_ || gone_[static_cast<std::size_t>(rank)]) return;
  gone_[static_cast<std::size_t>(rank)] = true;
  // A rank that left the job (its Term or Finalize done) failed nobody; one inside it did.
  if (unfinished_call(rank)) {
    const auto frame = std::make_shared<const std::vector<std::byte>>(
        encode_frame(MsgType::kFailed, static_cast<std::uint32_t>(rank), as_bytes(why)));
    for (Connection* conn : by_rank_) {
      if (conn != nullptr && conn->rank != rank) queue(*conn, frame);
    }
  }
  if (open_ && all_live_contributed()) complete_collective();
}

bool RendezvousServer::all_live_contributed() const {
  for (std::size_t r = 0; r < open_->blobs.size(); ++r) {
    if (!gone_[r] && !open_->blobs[r]) return false;
  }
  return true;
}

void RendezvousServer::read_pending() {
  for (const auto& conn : connections_) {
    if (!conn->dead) read_from(*conn);
  }
}

std::optional<std::string> RendezvousServer::unfinished_call(int rank) const {
  if (rank < 0 || rank >= size_ || leave_call_[static_cast<std::size_t>(rank)].empty()) return std::nullopt;
  return leave_call_[static_cast<std::size_t>(rank)];
}

void RendezvousServer::accept_connections() {
  for (;;) {
    const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR) continue;
      return;  // EAGAIN, or a transient failure (EMFILE...) the client will see as a closed socket
    }
    UniqueFd accepted(fd);
    // Only this user's processes may take part (the socket name is not a secret from root).
    // Over TCP the per-job secret in the hello takes that role.
    ucred peer{};
    socklen_t len = sizeof peer;
    if (secret_.empty() &&
        (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != ::geteuid())) {
      continue;
    }
    if (!secret_.empty()) detect_dead_link(fd, link_timeout_ms_);
    auto conn = std::make_unique<Connection>();
    conn->fd = std::move(accepted);
    connections_.push_back(std::move(conn));
  }
}

void RendezvousServer::read_from(Connection& conn) {
  bool eof = false;
  std::string error;
  // Read into a chunk and append what came, rather than growing conn.in by
  // a chunk of zeros on every call.
  std::byte chunk[kReadChunk];
  for (;;) {
    const ssize_t n = ::read(conn.fd.get(), chunk, sizeof chunk);
    if (n > 0) {
      conn.in.insert(conn.in.end(), chunk, chunk + n);
      continue;
    }
    if (n == 0) eof = true;
    else if (errno == EINTR) continue;
    else if (peer_process_gone(errno)) eof = true;
    else if (errno != EAGAIN && errno != EWOULDBLOCK) error = std::strerror(errno);
    break;
  }
  // Handle every complete frame before acting on end of file: a rank may send and then die.
  std::size_t consumed = 0;
  while (!conn.dead && conn.in.size() - consumed >= sizeof(FrameHeader)) {
    FrameHeader header;
    std::memcpy(&header, conn.in.data() + consumed, sizeof(header));
    if (header.length > kMaxPayload) {
      disconnect(conn, "rank " + std::to_string(conn.rank) + " sent a corrupt rendezvous message");
      return;
    }
    if (conn.in.size() - consumed - sizeof(header) < header.length) break;
    const std::span<const std::byte> payload(conn.in.data() + consumed + sizeof(header), header.length);
    consumed += sizeof(header) + header.length;
    handle_frame(conn, header, payload);
  }
  if (conn.dead) return;
  conn.in.erase(conn.in.begin(), conn.in.begin() + static_cast<std::ptrdiff_t>(consumed));
  if (!error.empty()) return connection_failed(conn, error);
  if (eof) closed_by_rank(conn);
}

void RendezvousServer::closed_by_rank(Connection& conn) {
  disconnect(conn, "rank " + std::to_string(conn.rank) + " closed its rendezvous connection (exited or crashed)");
}

void RendezvousServer::write_to(Connection& conn) {
  while (!conn.dead && !conn.out.empty()) {
    const auto& frame = *conn.out.front();
    const ssize_t n = ::send(conn.fd.get(), frame.data() + conn.out_offset, frame.size() - conn.out_offset,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;  // poll() will report POLLOUT
      if (peer_process_gone(errno)) return closed_by_rank(conn);
      return connection_failed(conn, std::strerror(errno));
    }
    conn.out_offset += static_cast<std::size_t>(n);
    if (conn.out_offset == frame.size()) {
      conn.out.pop_front();
      conn.out_offset = 0;
    }
  }
  if (!conn.dead && conn.out.empty() && conn.close_after_flush) {
    disconnect(conn, "rank " + std::to_string(conn.rank) + " was disconnected after a protocol error");
  }
}

void RendezvousServer::handle_frame(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload) {
  if (conn.close_after_flush) return;  // rejected: ignore whatever else it sends
  switch (header.type) {
    case MsgType::kHello: return handle_hello(conn, header, payload);
    case MsgType::kAllgather:
    case MsgType::kBarrier:
      if (conn.rank < 0) break;
      return contribute(conn, header, payload);
    case MsgType::kEnter:
    case MsgType::kLeave:
      if (conn.rank < 0) break;
      return note_job(conn, header, payload);
    case MsgType::kAbort:
      if (conn.rank < 0) break;
      aborted_[static_cast<std::size_t>(conn.rank)] = true;
      return;
    default: break;
  }
  const std::string why = "rank " + std::to_string(conn.rank) + " sent an unexpected rendezvous message '" +
                          msg_type_name(header.type) + "'";
  send_error(conn, header.seq, why);
  conn.close_after_flush = true;
  if (conn.rank >= 0) break_collectives(why);
  write_to(conn);
}

void RendezvousServer::handle_hello(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload) {
  const int rank = static_cast<int>(header.seq);
  std::uint32_t their_size = 0;
  std::string problem;
  if (conn.rank >= 0) {
    problem = "rank " + std::to_string(conn.rank) + " said hello twice";
  } else if (payload.size() < sizeof(their_size)) {
    problem = "malformed hello";
  } else if (!secret_.empty() && !same_secret(to_string(payload.subspan(sizeof(their_size))), secret_)) {
    // Anyone on the network may connect: say why, but nothing about the job.
    problem = "refused: wrong or missing job secret (LAPIS_JOB_SECRET)";
    std::fprintf(stderr, "lapirun: refused a rendezvous connection claiming rank %d: wrong or missing job secret\n",
                 rank);
  } else if (std::memcpy(&their_size, payload.data(), sizeof(their_size));
             their_size != static_cast<std::uint32_t>(size_) || rank < 0 || rank >= size_) {
    problem = "hello from rank " + std::to_string(rank) + " of size " + std::to_string(their_size) +
              ", but this job has " + std::to_string(size_) + " ranks (stale LAPIS_* variables?)";
  } else if (rank_seen_[static_cast<std::size_t>(rank)]) {
    problem = "rank " + std::to_string(rank) +
              " already joined the rendezvous (a second process with the same LAPIS_RANK?)";
  }
  if (!problem.empty()) {
    send_error(conn, header.seq, problem);
    conn.close_after_flush = true;
    write_to(conn);
    return;
  }
  conn.rank = rank;
  by_rank_[static_cast<std::size_t>(rank)] = &conn;
  rank_seen_[static_cast<std::size_t>(rank)] = true;
  ++joined_;
  send(conn, MsgType::kWelcome, header.seq, {});
}

void RendezvousServer::note_job(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload) {
  // Names are for messages only: keep them short and printable whatever a client sends.
  constexpr std::size_t kMaxName = 64;
  std::string& call = leave_call_[static_cast<std::size_t>(conn.rank)];
  if (header.type == MsgType::kLeave) return call.clear();
  call.clear();
  for (std::byte b : payload.first(std::min(payload.size(), kMaxName))) {
    const char c = static_cast<char>(b);
    call += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (call.empty()) call = "its leave call";
}

void RendezvousServer::contribute(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload) {
  const std::string what = describe(header.type, header.seq);
  if (!broken_.empty()) return send_error(conn, header.seq, what + " cannot complete: " + broken_);
  std::string mismatch;
  if (!open_ && header.seq != completed_) {
    mismatch = "rank " + std::to_string(conn.rank) + " called " + what + " but the job is at collective #" +
               std::to_string(completed_);
  } else if (open_ && (header.seq != open_->seq || header.type != open_->type)) {
    mismatch = "collective mismatch: rank " + std::to_string(conn.rank) + " called " + what + " but rank " +
               std::to_string(open_->first_rank) + " called " + describe(open_->type, open_->seq);
  } else if (open_ && open_->blobs[static_cast<std::size_t>(conn.rank)]) {
    mismatch = "rank " + std::to_string(conn.rank) + " called " + what + " twice";
  }
  if (!mismatch.empty()) {
    break_collectives(mismatch);
    return send_error(conn, header.seq, what + " failed: " + mismatch);
  }
  if (!open_) {
    open_ = OpenCollective{};  // not emplace(): clang 14 (tools/fuzz.sh) rejects it here
    open_->seq = header.seq;
    open_->type = header.type;
    open_->first_rank = conn.rank;
    open_->blobs.resize(static_cast<std::size_t>(size_));
  }
  open_->blobs[static_cast<std::size_t>(conn.rank)].emplace(payload.begin(), payload.end());
  if (all_live_contributed()) complete_collective();
}

void RendezvousServer::complete_collective() {
  OpenCollective done = std::move(*open_);
  open_.reset();
  ++completed_;
  std::shared_ptr<const std::vector<std::byte>> frame;
  if (done.type == MsgType::kAllgather) {
    std::vector<std::vector<std::byte>> blobs;
    blobs.reserve(done.blobs.size());
    for (auto& blob : done.blobs) blobs.push_back(blob ? std::move(*blob) : std::vector<std::byte>{});  // gone: empty
    frame = std::make_shared<const std::vector<std::byte>>(
        encode_frame(MsgType::kAllgatherResult, done.seq, encode_gather_result(blobs)));
  } else {
    frame = std::make_shared<const std::vector<std::byte>>(encode_frame(MsgType::kBarrierDone, done.seq, {}));
  }
  // Every contributor is still connected: a disconnect would have broken the collective (or,
  // with continue_on_failure, taken the rank out of it).
  for (Connection* conn : by_rank_) {
    if (conn != nullptr) queue(*conn, frame);
  }
}

void RendezvousServer::break_collectives(const std::string& why) {
  if (broken_.empty()) broken_ = why;
  if (!open_) return;
  OpenCollective failed = std::move(*open_);  // moved out first: sending may re-enter through disconnect()
  open_.reset();
  const std::string text = describe(failed.type, failed.seq) + " cannot complete: " + broken_;
  for (std::size_t r = 0; r < failed.blobs.size(); ++r) {
    if (failed.blobs[r] && by_rank_[r] != nullptr) send_error(*by_rank_[r], failed.seq, text);
  }
}

// An error, not an orderly close: across hosts the link to the rank's host broke, or went
// silent until keepalive gave up (ETIMEDOUT). The rank may still be running; the launcher
// decides what that means for the job (take_lost_links).
void RendezvousServer::connection_failed(Connection& conn, const std::string& error) {
  if (conn.rank >= 0 && !gone_[static_cast<std::size_t>(conn.rank)]) lost_links_.emplace_back(conn.rank, error);
  disconnect(conn, "rank " + std::to_string(conn.rank) + " lost its rendezvous connection (" + error + ")");
}

void RendezvousServer::disconnect(Connection& conn, const std::string& why) {
  if (conn.dead) return;
  conn.dead = true;
  conn.fd.reset();
  conn.out.clear();
  if (conn.rank >= 0) {
    by_rank_[static_cast<std::size_t>(conn.rank)] = nullptr;
    // With continue_on_failure the launcher's reap says how the rank ended (mark_rank_gone).
    if (!continue_on_failure_) break_collectives(why);
  }
}

void RendezvousServer::send(Connection& conn, MsgType type, std::uint32_t seq, std::span<const std::byte> payload) {
  queue(conn, std::make_shared<const std::vector<std::byte>>(encode_frame(type, seq, payload)));
}

void RendezvousServer::send_error(Connection& conn, std::uint32_t seq, const std::string& text) {
  send(conn, MsgType::kError, seq, as_bytes(text));
}

void RendezvousServer::queue(Connection& conn, std::shared_ptr<const std::vector<std::byte>> frame) {
  if (conn.dead) return;
  conn.out.push_back(std::move(frame));
  write_to(conn);  // most replies fit in the socket buffer: send now rather than after the next poll()
}

}  // namespace lapis::runtime::internal
