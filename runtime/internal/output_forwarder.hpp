#pragma once
// For `lapirun --tag-output`: reads each rank's stdout/stderr pipe inside the launcher's poll()
// loop and writes whole lines, prefixed "[rank] ", to the launcher's own stdout/stderr. Whole
// lines go out in one write, so output of different ranks never interleaves mid-line.
#include <poll.h>

#include <span>
#include <string>
#include <vector>

#include "runtime/internal/fd.hpp"

namespace lapis::runtime::internal {

class OutputForwarder {
 public:
  // Forward `source` (a pipe's read end) to `target_fd`, prefixing lines with "[rank] ".
  void add(int rank, UniqueFd source, int target_fd);

  // Same slice contract as RendezvousServer: handle_events() gets back what append_pollfds() added.
  void append_pollfds(std::vector<pollfd>& fds);
  void handle_events(std::span<const pollfd> fds);

  // Called once every rank has exited: reads whatever is left without waiting (a stray
  // grandchild may keep a pipe open forever), then flushes unfinished lines.
  void drain();

 private:
  struct Stream {
    int rank = 0;
    UniqueFd source;
    int target_fd = -1;
    std::string prefix;   // "[rank] "
    std::string pending;  // the unfinished last line
  };

  // Reads what is available; returns false once the stream is finished (EOF or error).
  bool pump(Stream& stream);
  // Writes the complete lines of `pending` (all of it when `flush_partial`).
  void emit_lines(Stream& stream, bool flush_partial);

  std::vector<Stream> streams_;
  std::size_t polled_ = 0;
};

}  // namespace lapis::runtime::internal
