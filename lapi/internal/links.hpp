#pragma once
// Striping over several network links (LAPIS_LINKS), after LA-MPI: a large Amsend to a task on
// another host leaves in fragments spread over every link the two tasks share, one TCP
// connection per link, written straight from the origin buffer and read straight into the
// landing buffer. When a link fails (a socket error, or data its peer's kernel has not
// acknowledged for LAPIS_LINK_TIMEOUT: TCP_USER_TIMEOUT), the fragments it carried for stripes
// not yet landed are written again over the others, or through UCX once none is left (one
// warning per link). The target keeps one copy of each fragment: nothing is lost or landed twice.
//
//   origin                                        target
//   Amsend frame through UCX: kSplitData |        header handler names the buffer
//     kStripedData, SplitWire{addr, len, id}  <-  stripe_go (token, fragment size and count)
//   fragments over the links, each link taking
//     the next as its socket drains              every fragment in: lands
//                                             <-  split_done (the origin buffer is free)
//
// The frame and the two control messages go through UCX like split copy's (stripes.cc is the
// engine's side); this class owns the sockets and both sides' stripe records. Everything runs
// under the engine's lock_; the engine polls it only while active() (a stripe in flight either
// way, or a connection being made), so a job that stripes nothing pays one load per poll.

#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/internal/completion.hpp"
#include "lapi/internal/slot_table.hpp"
#include "lapi/link_stats.hpp"
#include "lapi/status.hpp"

namespace lapi::internal {

inline constexpr std::size_t kMaxLinks = Config::kMaxLinks;

// One link of a task, as its card publishes it (IPv4, network byte order).
struct LinkAddress {
  std::uint32_t ip = 0;
  std::uint32_t mask = 0;
  std::uint16_t port = 0;
  std::uint16_t reserved = 0;
};

class LinkSet {
 public:
  // The engine's side (stripes.cc), called with lock_ held.
  struct Hooks {
    void* engine = nullptr;
    // Every fragment of stripe `id` from `src` is in `job`'s buffer.
    void (*landed)(void* engine, TaskId src, std::uint64_t id, const CompletionJob& job) = nullptr;
    // No link to `tgt` is left: fragment `index` of the target's stripe `token` goes by UCX.
    void (*over_ucx)(void* engine, TaskId tgt, std::uint64_t token, std::uint32_t index,
                     const std::byte* data, std::size_t len) = nullptr;
  };

  LinkSet() = default;
  LinkSet(const LinkSet&) = delete;
  LinkSet& operator=(const LinkSet&) = delete;
  ~LinkSet() { close(); }

  // Listens on each interface (its IPv4 address, a free port). An interface that does not
  // exist or has no IPv4 address is an error naming it.
  Status open(const std::vector<std::string>& interfaces, TaskId me, std::uint64_t uid,
              int timeout_ms, Hooks hooks);
  void close();
  bool enabled() const { return on_; }
  std::vector<LinkAddress> addresses() const;
  // A task on another host and its links: each of ours on the subnet of one of its links
  // becomes a link to it. Returns whether any did.
  bool add_peer(TaskId t, std::uint64_t uid, const std::string& host,
                std::span<const LinkAddress> theirs);
  // Whether a link to `t` is still up (striping is worth it).
  bool reaches(TaskId t) const {
    auto it = peers_.find(t);
    return it != peers_.end() && it->second.live > 0;
  }

  unsigned link_count(TaskId t) const {
    auto it = peers_.find(t);
    return it == peers_.end() ? 0 : static_cast<unsigned>(it->second.out.size());
  }

  // ---- origin
  // Stripe `id` (the engine's SplitSend record) of `len` bytes at `data` to `tgt`; its
  // connections start now, its fragments leave once go() names the target's record.
  void begin_send(std::uint64_t id, TaskId tgt, const void* data, std::size_t len);
  // stripe_go: false (nothing done) when it names no stripe of ours to `from` or a fragment
  // layout that does not cover the data.
  bool go(TaskId from, std::uint64_t id, std::uint64_t token, std::uint64_t frag_bytes,
          std::uint32_t frags);
  // split_done: the stripe landed (or was refused): drop what is left of it.
  void end_send(std::uint64_t id);

  // ---- target
  // The header handler named `buffer`: returns the token for stripe_go, and the layout.
  std::uint64_t begin_recv(TaskId src, std::uint64_t id, void* buffer, std::size_t len,
                           const CompletionJob& job, std::uint64_t& frag_bytes,
                           std::uint32_t& frags);
  // Where fragment `index` of `token` from `src` lands, if it is `len` bytes and still missing
  // (null: drop it, a late copy). `valid` is false for a token or layout never handed out.
  std::byte* place(TaskId src, std::uint64_t token, std::uint32_t index, std::size_t len, bool& valid);
  // That fragment is in place (a UCX fragment, or one read from a link).
  void fragment_landed(TaskId src, std::uint64_t token, std::uint32_t index);

  // `t` failed: its stripes either way are dropped and its links closed (nothing waits on them,
  // and the engine stops polling for them).
  void drop_peer(TaskId t);

  // ---- progress
  bool active() const { return on_ && (!sends_.empty() || recvs_.live() != 0 || connecting_ > 0); }
  // One non-blocking round over every socket: accepts, connects, writes, reads.
  bool progress();
  // The sockets a sleeper must watch while active() (appended).
  void add_pollfds(std::vector<pollfd>& fds) const;

  LinkStats stats() const;

 private:
  struct Local {
    std::string name;
    std::uint32_t ip = 0, mask = 0;
    int listen_fd = -1;
    std::uint16_t port = 0;
    LinkStats::Link stats;
    bool warned = false;
  };
  struct FragRef {
    std::uint64_t stripe;
    std::uint32_t index;
  };
  struct Out {  // one link to one peer: a connection this task writes
    std::uint8_t local = 0;
    std::uint32_t ip = 0;
    std::uint16_t port = 0;
    enum class State : std::uint8_t { idle, connecting, ready, dead } state = State::idle;
    int fd = -1;
    bool busy = false;  // a fragment is partly written
    FragRef frag{};
    std::byte head[16]{};
    const std::byte* data = nullptr;  // null: the stripe ended, the rest is zeros
    std::size_t len = 0;
    std::size_t written = 0;  // of head + data
  };
  struct Peer {
    std::uint64_t uid = 0;
    std::string host;
    std::vector<Out> out;
    unsigned live = 0;         // links not dead
    unsigned next = 0;         // round robin
    std::deque<FragRef> todo;  // fragments to write
  };
  struct SendStripe {
    TaskId tgt;
    const std::byte* data;
    std::size_t len;
    std::uint64_t token = 0;
    std::uint64_t frag_bytes = 0;
    std::uint32_t frags = 0;
    std::vector<std::int8_t> link_of;  // per fragment: the link it went over, -1 none yet
  };
  struct RecvStripe {
    TaskId src;
    std::uint64_t id;
    std::byte* buffer;
    std::size_t len;
    std::uint64_t frag_bytes;
    std::uint32_t frags;
    std::uint32_t missing;
    std::vector<bool> have;
    CompletionJob job;
  };
  struct In {  // a connection a peer writes
    int fd = -1;
    TaskId src = kUnknown;
    std::byte head[16]{};
    std::size_t head_got = 0;
    bool in_data = false;
    std::uint64_t token = 0;
    std::uint32_t index = 0;
    std::size_t len = 0, got = 0;
    bool in_place = true;
  };
  static constexpr TaskId kUnknown = ~TaskId{0};

  void connect_out(TaskId t, Peer& peer, Out& out);
  void fail_out(TaskId t, Peer& peer, Out& out, const std::string& why);
  // Writes the peer's fragments over its ready links, round robin, until each is full.
  bool pump(TaskId t, Peer& peer);
  // Writes what `out` can take of its fragment; false when the socket is full or failed.
  bool write_some(TaskId t, Peer& peer, Out& out);
  void fragment_written(Out& out);
  void over_ucx(TaskId t, Peer& peer);
  bool read_some(In& in);  // false: close it
  std::size_t frag_len(const RecvStripe& s, std::uint32_t index) const;

  TaskId me_ = 0;
  std::uint64_t uid_ = 0;
  int timeout_ms_ = 2000;
  Hooks hooks_;
  std::vector<Local> locals_;
  std::unordered_map<TaskId, Peer> peers_;
  std::unordered_map<std::uint64_t, SendStripe> sends_;
  SlotTable<std::unique_ptr<RecvStripe>> recvs_;
  std::vector<In> ins_;
  unsigned connecting_ = 0;
  bool on_ = false;  // open() made listeners: read on every poll, so apart from the rest
  std::vector<std::byte> scratch_;  // late copies are read here and dropped
  std::vector<pollfd> fds_;  // progress()'s poll set, kept for its capacity
  // Totals for stats().
  std::uint64_t stripes_sent_ = 0, stripes_received_ = 0, resent_ = 0, over_ucx_ = 0;
};

}  // namespace lapi::internal
