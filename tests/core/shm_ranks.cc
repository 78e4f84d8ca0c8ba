// The intra-node shared-memory channel: small Amsends between tasks of one
// node go through it (and with LAPIS_SHM=0 through UCX), a full ring or a
// sleeping target falls back to UCX without loss, and forged frames are
// refused. Run by shm_test under lapirun.

#include <doctest/doctest.h>

#include <sched.h>

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lapi/testing.hpp"
#include "runtime/bootstrap.hpp"
#include "tests/core/amsend_inbox.hpp"
#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

// Every pair through UCX over TCP: LAPIS_TRANSPORTS=tcp, or a rule for all pairs
// (shm_test runs these two).
bool tcp_only() { return env_is("LAPIS_TRANSPORTS", "tcp") || env_is("LAPIS_PATHS", "*-*=tcp"); }

// The rings are on unless LAPIS_SHM=0 or every pair takes TCP.
bool shm_on() { return !env_is("LAPIS_SHM", "0") && !tcp_only(); }

// shm_send_raw, retried while the peer's ring is full or the peer sleeps
// (a peer still waiting in lapi's barrier may sleep there a while).
void send_forged(lapi::Context& ctx, lapi::TaskId peer, const std::vector<unsigned char>& frame,
                 std::uint32_t claimed_len) {
  poll_until(ctx, [&] {
    const lapi::Status s = lapi::testing::shm_send_raw(ctx, peer, frame.data(), frame.size(), claimed_len);
    if (s.code() == lapi::Errc::transport) return false;
    LAPI_OK(s);
    return true;
  });
}

}  // namespace

TEST_CASE("small amsends to tasks on this node take shared memory; LAPIS_SHM=0 keeps UCX") {
  // Sizes across one slot, several slots and the channel's frame limit.
  const std::vector<std::size_t> sizes = {0, 1, 8, 255, 256, 257, 540, 541, 600, 1024, 4000, 8000, 8191};
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  const std::uint32_t n = s.ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  const lapi::ShmStats before = s.ctx.shm_stats();
  send_all(s.ctx, right, sizes, {s.counters[right]});
  LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
  check_inbox(sizes);
  const lapi::ShmStats after = s.ctx.shm_stats();
  // Each task's path, as chosen at init: the rings on one host unless off.
  lapi::PathInfo path;
  LAPI_OK(s.ctx.path_of(me, path));
  CHECK(path.path == lapi::Path::self);
  CHECK(path.same_host);
  if (n > 1) {
    LAPI_OK(s.ctx.path_of(right, path));
    CHECK(path.path == (shm_on() ? lapi::Path::shm : lapi::Path::ucx));
    CHECK(path.same_host);  // whichever path: every task of this test is on this host
    CHECK(path.tcp == tcp_only());
    if (!shm_on()) CHECK_FALSE(path.split);  // split copy only beside the rings
  }
  CHECK(s.ctx.path_of(n, path).code() == lapi::Errc::tgt);
  if (shm_on() && n > 1) {
    CHECK(after.peers == n - 1);
    // Everything below the core's eager limit (8192) fits a frame; a send
    // goes through UCX only when the ring is full or the target sleeps.
    const std::uint64_t sent = after.sent - before.sent;
    CHECK(sent + after.ring_full - before.ring_full + after.peer_asleep - before.peer_asleep ==
          sizes.size());
    CHECK(after.received - before.received <= sizes.size());
    // Over the job, frames did take the rings. A target asleep (a waiter's
    // last stage) is sent to through UCX, which wakes it; on a loaded host
    // (TSan CI) every sender once finished its round before its target
    // woke. So more rounds, up to 20, until some frame took a ring: a
    // target asleep at every send of every round would be a bug.
    auto job_total = [&](std::uint64_t mine) {
      std::uint64_t total = 0;
      for (auto v : exchange(s.ctx, mine)) total += v;
      return total;
    };
    std::uint64_t total = job_total(sent);
    for (int round = 0; total == 0 && round < 20; ++round) {
      const lapi::ShmStats round_before = s.ctx.shm_stats();
      send_all(s.ctx, right, sizes, {s.counters[right]});
      LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
      check_inbox(sizes);
      total = job_total(s.ctx.shm_stats().sent - round_before.sent);
    }
    CHECK(total > 0);
  } else {
    CHECK(after.peers == 0);
    CHECK(after.sent == 0);
    CHECK(after.received == 0);
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("a full ring keeps the rest in order until it has room: nothing lost, none through UCX") {
  lapi::Context& ctx = rank_context();
  if (!shm_on() || ctx.num_tasks() < 2) return;
  const std::vector<std::size_t> sizes(300, 6000);  // 11 slots each: a ring holds 10 or 11
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  // Task 1 waits outside the library (the launcher's barrier) while task 0
  // sends: its ring fills and stays full. A first launcher barrier makes
  // sure task 1 has left lapi's barrier above (where it still polls, and
  // would drain the ring) before task 0 starts.
  lapis::runtime::process_bootstrap().barrier();
  if (me == 0) {
    const lapi::ShmStats before = s.ctx.shm_stats();
    Sender sender;  // not waited for yet: the queued sends still read their buffers
    sender.send(s.ctx, 1, sizes, {s.counters[1]});
    const lapi::ShmStats after = s.ctx.shm_stats();
    // In interrupt mode task 1's progress thread drains its ring meanwhile
    // (and sleeps: UCX wakes it), so only polling mode knows how many fit.
    if (!env_is("LAPIS_MODE", "interrupt")) {
      // Where the ring's free space starts decides whether the first frame
      // needs a pad to the ring's end: 10 or 11 frames fit.
      const std::uint64_t in_ring = after.sent - before.sent;
      CHECK(in_ring >= 10);
      CHECK(in_ring <= 11);
      CHECK(after.ring_queued - before.ring_queued == sizes.size() - in_ring);
      // Their buffers are still the user's to keep: the origin counter
      // says only the frames in the ring are done with theirs.
      CHECK(sender.origin.get() == static_cast<int>(in_ring));
    }
    lapis::runtime::process_bootstrap().barrier();
    sender.wait(s.ctx);  // polls: the queue follows as task 1 drains the ring
    // Each went into the ring, or through UCX: from the queue if task 0
    // went to sleep waiting (a long wait on a loaded host), or to a target
    // asleep.
    const lapi::ShmStats done = s.ctx.shm_stats();
    CHECK(done.sent - before.sent + done.ring_full - before.ring_full + done.peer_asleep -
              before.peer_asleep ==
          sizes.size());
  } else {
    lapis::runtime::process_bootstrap().barrier();
    if (me == 1) {
      const lapi::ShmStats before = s.ctx.shm_stats();
      LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
      check_inbox(sizes);
      // All through the ring: in the order they were sent (UCX and the
      // ring do not keep order between them).
      REQUIRE(g_inbox.order.size() == sizes.size());
      if (s.ctx.shm_stats().received - before.received == sizes.size()) {
        for (std::uint32_t i = 0; i < sizes.size(); ++i) CHECK(g_inbox.order[i] == i);
      }
    }
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("a sleeping target is reached through UCX, which wakes it") {
  lapi::Context& ctx = rank_context();
  if (!shm_on() || ctx.num_tasks() < 2) return;
  constexpr std::uint32_t kRounds = 10;
  Setup& s = setup(kRounds + 1);
  const lapi::TaskId me = s.ctx.task_id();
  // Task 1 waits for one message at a time; once idle long enough it sleeps
  // on its event fd and says so in its inbox. Task 0 then sends. Task 1 may
  // wake (its sleeps time out) between task 0's look and its send, so
  // there are a few rounds; the message's first byte says whether more follow.
  if (me == 0) {
    const lapi::ShmStats before = s.ctx.shm_stats();
    lapi::Counter origin;
    std::uint32_t seq = 0;
    for (; seq < kRounds && s.ctx.shm_stats().peer_asleep == before.peer_asleep; ++seq) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!lapi::testing::shm_peer_sleeping(s.ctx, 1)) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        sched_yield();
      }
      const unsigned char more = 1;
      LAPI_OK(s.ctx.amsend(1, 1, &seq, sizeof seq, &more, 1, {{s.counters[1]}, &origin, nullptr}));
      LAPI_OK(s.ctx.waitcntr(origin, 1));
    }
    CHECK(s.ctx.shm_stats().peer_asleep - before.peer_asleep == 1);
    const unsigned char stop = 0;
    LAPI_OK(s.ctx.amsend(1, 1, &seq, sizeof seq, &stop, 1, {{s.counters[1]}, &origin, nullptr}));
    LAPI_OK(s.ctx.waitcntr(origin, 1));
  } else if (me == 1) {
    // UCX and the ring do not keep order between them: the stop message
    // may land before the one sent through UCX.
    std::uint32_t landed = 0;
    auto stopped = [&] {
      for (std::uint32_t seq = 0; seq < landed; ++seq) {
        if (g_inbox.slots[seq].size() != 1) return false;
      }
      return landed > 0 && g_inbox.slots[landed - 1][0] == 0;
    };
    while (!stopped()) {
      REQUIRE(landed <= kRounds);
      LAPI_OK(s.ctx.waitcntr(s.landed, 1));
      ++landed;
    }
    CHECK(g_inbox.bad.load() == 0);
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("forged shared-memory frames are refused, not executed") {
  lapi::Context& ctx = rank_context();
  if (!shm_on() || ctx.num_tasks() < 2) return;
  // Counted before the barrier: a peer may send (and this task refuse)
  // while this task is still leaving it.
  const auto before = ctx.fault_stats().refused_here;
  Setup& s = setup(1);
  const lapi::TaskId me = s.ctx.task_id();
  const lapi::TaskId peer = (me + 1) % s.ctx.num_tasks();
  // A packed Amsend frame: AmsendWire{src, handler 1, flags with uhdr_len 4}, uhdr.
  auto frame = [](std::uint32_t src, std::uint32_t seq) {
    std::vector<unsigned char> f(12);
    const std::uint16_t handler = 1, flags = 4 << 8;
    std::memcpy(f.data(), &src, 4);
    std::memcpy(f.data() + 4, &handler, 2);
    std::memcpy(f.data() + 6, &flags, 2);
    std::memcpy(f.data() + 8, &seq, 4);
    return f;
  };
  // The hook itself refuses what it cannot send, naming the argument.
  const auto probe = frame(me, 0);
  const lapi::Status to_self = lapi::testing::shm_send_raw(s.ctx, me, probe.data(), probe.size(), 0);
  CHECK(to_self.code() == lapi::Errc::tgt);
  CHECK(to_self.message().find("tgt=") != std::string::npos);
  std::vector<unsigned char> huge(15 * 576);  // 15 slots: more than a frame holds
  const lapi::Status too_long = lapi::testing::shm_send_raw(s.ctx, peer, huge.data(), huge.size(), 0);
  CHECK(too_long.code() == lapi::Errc::hdr_len);
  CHECK(too_long.message().find("len=") != std::string::npos);
  const auto other = frame(me == 0 ? 1 : 0, 0);  // claims another sender
  send_forged(s.ctx, peer, other, 0);
  const auto mine = frame(me, 0);
  // Claims more bytes than the ring holds from its slot on.
  send_forged(s.ctx, peer, mine, 1u << 30);
  // Claims just past the frame limit.
  send_forged(s.ctx, peer, mine, 15 * 576);
  // Control frames (flag 1 << 5, the kind in the handler word): split_done (17) and split_go
  // (15) naming no split amsend, a kind the ring does not carry (fence_request, 7), a
  // split_done one byte short.
  auto control = [&](std::uint16_t kind, std::size_t len) {
    std::vector<unsigned char> f(len);
    const std::uint16_t flags = 1u << 5;
    const std::uint64_t record = 0x7fff000000000003ull;  // a generation no record reaches
    std::memcpy(f.data(), &me, 4);
    std::memcpy(f.data() + 4, &kind, 2);
    std::memcpy(f.data() + 6, &flags, 2);
    if (len >= 12) std::memcpy(f.data() + 8, &me, 4);  // the message's src
    if (len >= 24) std::memcpy(f.data() + 16, &record, 8);
    return f;
  };
  send_forged(s.ctx, peer, control(17, 24), 0);
  send_forged(s.ctx, peer, control(15, 56), 0);
  send_forged(s.ctx, peer, control(7, 24), 0);
  send_forged(s.ctx, peer, control(17, 23), 0);
  poll_until(s.ctx, [&] { return s.ctx.fault_stats().refused_here - before >= 7; }, 30);
  CHECK(g_inbox.bad.load() == 0);
  CHECK(g_inbox.slots[0].empty());  // none of them reached the handler
  LAPI_OK(s.ctx.barrier());
  // Still healthy: a real message after the forged ones.
  const std::vector<std::size_t> sizes = {100};
  send_all(s.ctx, peer, sizes, {s.counters[peer]});
  LAPI_OK(s.ctx.waitcntr(s.landed, 1));
  check_inbox(sizes);
  LAPI_OK(s.ctx.barrier());
}

namespace {

// Inodes of the sockets this process holds open.
std::set<std::string> own_socket_inodes() {
  std::set<std::string> inodes;
  DIR* dir = ::opendir("/proc/self/fd");
  REQUIRE(dir != nullptr);
  while (const dirent* e = ::readdir(dir)) {
    char target[128] = {};
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    const std::string text(target, n > 0 ? static_cast<std::size_t>(n) : 0);
    if (text.rfind("socket:[", 0) == 0) inodes.insert(text.substr(8, text.size() - 9));
  }
  ::closedir(dir);
  return inodes;
}

// Local addresses (hex, as /proc/net/tcp* writes them) of this process' listening TCP sockets.
std::vector<std::string> own_listening_addresses() {
  const std::set<std::string> mine = own_socket_inodes();
  std::vector<std::string> addresses;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream f(table);
    std::string line;
    std::getline(f, line);  // header
    while (std::getline(f, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state == "0A" && mine.count(inode) != 0) addresses.push_back(local.substr(0, local.find(':')));
    }
  }
  return addresses;
}

}  // namespace

TEST_CASE("a job on one host listens on loopback only") {
  // UCX's TCP transport used to listen on every interface, open to anyone who could reach the
  // host; a job on one host needs no network at all.
  lapi::Context& ctx = rank_context();
  const std::vector<std::string> listening = own_listening_addresses();
  for (const std::string& address : listening) {
    CAPTURE(address);
    const bool loopback = address == "0100007F" || address == "00000000000000000000000001000000";
    CHECK(loopback);
  }
  LAPI_OK(ctx.barrier());
}

namespace {

// Handler 9: counts quiet messages; handler 10 counts ordinary ones.
std::atomic<int> g_quiet{0};
std::atomic<int> g_loud{0};
std::atomic<std::uint64_t> g_quiet_word{0};  // the last quiet message's header
lapi::Counter g_quiet_counter;
lapi::Landing count_quiet(lapi::Context&, const lapi::AmHeaderInfo& info) {
  std::uint64_t word = ~0ull;
  if (info.uhdr_len == sizeof word) std::memcpy(&word, info.uhdr, sizeof word);
  g_quiet_word.store(word);
  g_quiet.fetch_add(1);
  g_quiet_counter.add(1);
  return {};
}
lapi::Landing count_loud(lapi::Context&, const lapi::AmHeaderInfo&) {
  g_loud.fetch_add(1);
  return {};
}

void register_quiet_handlers(lapi::Context& ctx) {
  static bool done = false;
  if (done) return;
  LAPI_OK(ctx.register_handler(9, count_quiet));
  LAPI_OK(ctx.register_handler(10, count_loud));
  done = true;
}

// Until task 1 says in its inbox that it sleeps: `waiter`, an application
// thread waiting in the library; otherwise its progress thread alone.
void until_peer_sleeps(lapi::Context& ctx, bool waiter) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!lapi::testing::shm_peer_sleeping(ctx, 1) ||
         lapi::testing::shm_peer_waiter_asleep(ctx, 1) != waiter) {
    if (std::chrono::steady_clock::now() > deadline) FAIL("task 1 never slept that way");
    sched_yield();
  }
}

}  // namespace

TEST_CASE("a quiet amsend's bad arguments are errors naming them") {
  lapi::Context& ctx = rank_context();
  const std::uint64_t word = 1;
  const lapi::Status tgt = ctx.amsend_quiet(ctx.num_tasks(), 9, &word, sizeof word);
  CHECK(tgt.code() == lapi::Errc::tgt);
  CHECK(std::string(tgt.message()).find("tgt=") != std::string::npos);
  CHECK(ctx.amsend_quiet(0, 0, &word, sizeof word).code() == lapi::Errc::hdr_hndlr_null);
  CHECK(ctx.amsend_quiet(0, 9, nullptr, 8).code() == lapi::Errc::uhdr_null);
}

// amsend_quiet (what the MPI layer's direct landing sends): into the ring
// although the target's progress thread sleeps, which it does not wake; the
// next thing that wakes it (here an ordinary Amsend) finds it first.
TEST_CASE("a quiet amsend goes into a sleeping progress thread's ring without waking it") {
  lapi::Context& ctx = rank_context();
  if (!shm_on() || ctx.num_tasks() < 2) return;
  register_quiet_handlers(ctx);
  LAPI_OK(ctx.senv(lapi::Query::interrupt_mode, 1));
  LAPI_OK(ctx.barrier());
  const lapi::TaskId me = ctx.task_id();
  if (me == 0) {
    // Task 1's progress thread sleeps and no application thread of it does
    // (its application may still be finishing the barrier, polling). It
    // may fall asleep there just as the message is published, and then is
    // rightly woken: a few rounds, until one is not.
    bool unwoken = false;
    for (int round = 0; round < 10 && !unwoken; ++round) {
      until_peer_sleeps(ctx, false);
      const lapi::ShmStats before = ctx.shm_stats();
      const std::uint64_t word = 7;
      LAPI_OK(ctx.amsend_quiet(1, 9, &word, sizeof word));
      const lapi::ShmStats after = ctx.shm_stats();
      CHECK(after.sent - before.sent == 1);  // through the ring
      CHECK(after.peer_asleep == before.peer_asleep);
      unwoken = after.wakes == before.wakes;
    }
    CHECK(unwoken);
    lapi::Counter origin;
    const std::uint64_t word = 7;
    LAPI_OK(ctx.amsend(1, 10, &word, sizeof word, nullptr, 0, {{}, &origin, nullptr}));
    LAPI_OK(ctx.waitcntr(origin, 1));
  } else if (me == 1) {
    // Computing, out of the library, until the ordinary message's wake-up
    // has had the progress thread handle both.
    while (g_loud.load() == 0) {
    }
    CHECK(g_quiet.load() >= 1);  // the ring is polled before UCX
  }
  LAPI_OK(ctx.senv(lapi::Query::interrupt_mode, 0));
  LAPI_OK(ctx.barrier());
}

// An application thread asleep in a wait is woken by a quiet message (it
// looks for it): task 1 waits in waitcntr until it sleeps there. Its sleeps
// time out now and then (a safety net), so it may be awake again when the
// message comes: a few rounds, the header saying whether more follow.
TEST_CASE("a quiet amsend wakes an application thread asleep in a wait") {
  lapi::Context& ctx = rank_context();
  if (!shm_on() || ctx.num_tasks() < 2) return;
  register_quiet_handlers(ctx);
  LAPI_OK(ctx.barrier());
  const lapi::TaskId me = ctx.task_id();
  if (me == 0) {
    const lapi::ShmStats before = ctx.shm_stats();
    for (int round = 0; round < 10 && ctx.shm_stats().wakes == before.wakes; ++round) {
      until_peer_sleeps(ctx, true);
      const std::uint64_t more = 1;
      LAPI_OK(ctx.amsend_quiet(1, 9, &more, sizeof more));
    }
    CHECK(ctx.shm_stats().wakes - before.wakes == 1);
    CHECK(ctx.shm_stats().peer_asleep == before.peer_asleep);  // all through the ring
    const std::uint64_t stop = 0;
    LAPI_OK(ctx.amsend_quiet(1, 9, &stop, sizeof stop));
  } else if (me == 1) {
    do {
      LAPI_OK(ctx.waitcntr(g_quiet_counter, 1));
    } while (g_quiet_word.load() != 0);
  }
  LAPI_OK(ctx.barrier());
}
