#pragma once
// Launcher side of the lapirun rendezvous (protocol in wire.hpp). Runs inside the launcher's
// single-threaded poll() loop: it never blocks, and owns its sockets.
//
// Collectives are gathered on the server: rank r's k-th call is stored until all ranks made
// their k-th call, then every rank receives the same encoded result. Only one collective can be
// open at a time, since no rank can start call k+1 before call k completed.
//
// Failure rule: once any rank is gone (its connection closed, or its process exited), no
// collective can ever complete again, so the open one and every later one fails with an Error
// reply naming that rank. The same holds after a collective mismatch between ranks.
//
// With continue_on_failure (lapirun --continue-on-failure) the job goes on without a rank whose
// process ended: collectives gather the ranks left (an allgather leaves the gone rank's slot
// empty), and when the rank ended inside the job every other rank is told (a Failed frame).
#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/internal/fd.hpp"
#include "runtime/internal/tcp.hpp"
#include "runtime/internal/wire.hpp"

namespace lapis::runtime::internal {

class RendezvousServer {
 public:
  // `listener`: a bound, listening stream socket. `size`: number of ranks in the job.
  // `secret` empty: a Unix socket, whose peers must be this user (SO_PEERCRED). Otherwise a TCP
  // socket: every hello must carry `secret`, or the connection is refused with an Error reply,
  // and a connection whose link stays silent for `link_timeout_ms` fails (detect_dead_link).
  RendezvousServer(UniqueFd listener, int size, std::string secret = {}, bool continue_on_failure = false,
                   int link_timeout_ms = kDefaultLinkTimeoutMs);
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer&) = delete;
  RendezvousServer& operator=(const RendezvousServer&) = delete;

  // Appends the descriptors to poll; handle_events() must then get exactly that slice back
  // (with revents filled in) before the next append_pollfds().
  void append_pollfds(std::vector<pollfd>& fds);
  void handle_events(std::span<const pollfd> fds);

  // The launcher reaped rank `rank`; `why` says how it ended (e.g. "rank 2 exited with status 3").
  void mark_rank_gone(int rank, const std::string& why);

  // Reads whatever the ranks have sent but poll() has not reported yet: a rank's last note
  // (Leave) precedes its exit, so the launcher calls this before judging how a rank ended.
  void read_pending();

  // The rank's leave call ("MPI_Finalize") if it entered the job and has not left it.
  std::optional<std::string> unfinished_call(int rank) const;
  // Whether the rank said it is ending the whole job (Abort, e.g. MPI_Abort).
  bool aborted(int rank) const { return rank >= 0 && rank < size_ && aborted_[static_cast<std::size_t>(rank)]; }

  // Ranks whose connection failed (an error, not a close) since the last call, with the error:
  // the link to their host is gone while the rank may still run.
  std::vector<std::pair<int, std::string>> take_lost_links() { return std::exchange(lost_links_, {}); }

  // Closes the listening socket (no further valid client can come once all joined).
  void stop_listening() { listener_.reset(); }

  // Every rank has said hello: no further valid client can come.
  bool all_joined() const { return joined_ == size_; }
  std::uint32_t completed_collectives() const { return completed_; }

 private:
  struct Connection {
    UniqueFd fd;
    int rank = -1;                       // -1 until a valid hello
    std::vector<std::byte> in;           // bytes received, not yet parsed
    std::deque<std::shared_ptr<const std::vector<std::byte>>> out;  // frames to send, in order
    std::size_t out_offset = 0;          // bytes of out.front() already sent
    bool close_after_flush = false;      // set after rejecting the peer
    bool dead = false;                   // to be removed after this round of events
  };

  void accept_connections();
  void read_from(Connection& conn);
  void write_to(Connection& conn);
  void handle_frame(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload);
  void handle_hello(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload);
  void note_job(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload);
  void contribute(Connection& conn, const FrameHeader& header, std::span<const std::byte> payload);
  void complete_collective();
  // Every rank still in the job has contributed to the open collective.
  bool all_live_contributed() const;
  // --continue-on-failure: the job goes on without `rank`.
  void drop_rank(int rank, const std::string& why);
  // Fails the open collective (if any) and every later one with `why`.
  void break_collectives(const std::string& why);
  void connection_failed(Connection& conn, const std::string& error);
  void closed_by_rank(Connection& conn);
  void disconnect(Connection& conn, const std::string& why);
  void send(Connection& conn, MsgType type, std::uint32_t seq, std::span<const std::byte> payload);
  void send_error(Connection& conn, std::uint32_t seq, const std::string& text);
  void queue(Connection& conn, std::shared_ptr<const std::vector<std::byte>> frame);

  struct OpenCollective {
    std::uint32_t seq = 0;
    MsgType type = MsgType::kNone;
    int first_rank = 0;                               // for mismatch messages
    std::vector<std::optional<std::vector<std::byte>>> blobs;  // by rank
  };

  UniqueFd listener_;
  const int size_;
  const std::string secret_;
  const bool continue_on_failure_;
  const int link_timeout_ms_;
  std::vector<std::pair<int, std::string>> lost_links_;
  std::vector<bool> gone_;                 // continue_on_failure: ranks the job goes on without
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> by_rank_;       // live connection of each rank that said hello
  std::vector<bool> rank_seen_;            // a hello was accepted for this rank at some point
  std::vector<bool> aborted_;              // by rank: it sent Abort
  std::vector<std::string> leave_call_;    // by rank: non-empty while the rank is in the job
  int joined_ = 0;                         // how many entries of rank_seen_ are true
  std::optional<OpenCollective> open_;
  std::uint32_t completed_ = 0;
  std::string broken_;                     // non-empty: why no collective can complete any more
  std::size_t polled_ = 0;                 // connections_.size() at the last append_pollfds()
};

}  // namespace lapis::runtime::internal
