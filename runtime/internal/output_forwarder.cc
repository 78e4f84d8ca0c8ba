#include "runtime/internal/output_forwarder.hpp"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace lapis::runtime::internal {
namespace {

// A "line" longer than this is cut and emitted, so a rank printing without newlines cannot make
// the launcher buffer without bound.
constexpr std::size_t kMaxLine = 1 << 20;

}  // namespace

void OutputForwarder::add(int rank, UniqueFd source, int target_fd) {
  set_nonblocking(source.get());
  streams_.push_back(Stream{rank, std::move(source), target_fd, "[" + std::to_string(rank) + "] ", {}});
}

void OutputForwarder::append_pollfds(std::vector<pollfd>& fds) {
  for (const Stream& stream : streams_) fds.push_back({stream.source.get(), POLLIN, 0});
  polled_ = streams_.size();
}

void OutputForwarder::handle_events(std::span<const pollfd> fds) {
  for (std::size_t i = 0; i < polled_ && i < fds.size(); ++i) {
    Stream& stream = streams_[i];
    if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !pump(stream)) {
      emit_lines(stream, /*flush_partial=*/true);
      stream.source.reset();
    }
  }
  std::erase_if(streams_, [](const Stream& s) { return !s.source.valid(); });
}

void OutputForwarder::drain() {
  for (Stream& stream : streams_) {
    pump(stream);
    emit_lines(stream, /*flush_partial=*/true);
  }
  streams_.clear();
}

bool OutputForwarder::pump(Stream& stream) {
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(stream.source.get(), buffer, sizeof(buffer));
    if (n > 0) {
      stream.pending.append(buffer, static_cast<std::size_t>(n));
      emit_lines(stream, /*flush_partial=*/false);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;  // EOF or a real error: this stream is done
  }
}

void OutputForwarder::emit_lines(Stream& stream, bool flush_partial) {
  std::string out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = stream.pending.find('\n', start);
    if (end == std::string::npos) {
      const bool cut = stream.pending.size() - start >= kMaxLine;
      if (!(cut || (flush_partial && start < stream.pending.size()))) break;
      end = stream.pending.size();
    }
    out += stream.prefix;
    out.append(stream.pending, start, end - start);
    out += '\n';
    start = end < stream.pending.size() ? end + 1 : end;
  }
  stream.pending.erase(0, start);
  // A failed write (our stdout closed) just loses that output; the job itself goes on.
  if (!out.empty()) (void)write_all(stream.target_fd, std::as_bytes(std::span(out.data(), out.size())));
}

}  // namespace lapis::runtime::internal
