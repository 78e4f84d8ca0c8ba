// The links' sockets (lapi/internal/links.hpp) in one process over loopback: two link sets as
// two tasks, task 0 striping to task 1. A stripe lands in place; stripe_go's and the UCX
// fragments' checks refuse what names no stripe; late copies are dropped; and a stranger who
// connects to a link's port, or impersonates a task with a forged fragment, loses its
// connection while the link goes on working. And the link watch (link_watch.hpp): a task that
// ends without its goodbye is reported; a stranger at the watch's port is ignored.
#include "lapi/internal/links.hpp"

#include "lapi/internal/link_watch.hpp"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

using lapi::internal::LinkSet;

namespace {

constexpr std::uint64_t kUidA = 0x1111222233334444;
constexpr std::uint64_t kUidB = 0x5555666677778888;
constexpr std::uint64_t kHelloMagic = 0x6c617069736c6e31;  // links.cc's "lapisln1"

struct Landed {
  lapi::TaskId src;
  std::uint64_t id;
};

struct Pair {
  LinkSet a, b;  // task 0 (sends) and task 1 (receives)
  std::vector<Landed> landed;
  int over_ucx = 0;

  Pair() {
    const LinkSet::Hooks hooks{this, [](void* self, lapi::TaskId src, std::uint64_t id, const lapi::internal::CompletionJob&) {
                                 static_cast<Pair*>(self)->landed.push_back({src, id});
                               },
                               [](void* self, lapi::TaskId, std::uint64_t, std::uint32_t, const std::byte*, std::size_t) {
                                 ++static_cast<Pair*>(self)->over_ucx;
                               }};
    REQUIRE(a.open({"lo"}, 0, kUidA, 2000, hooks).ok());
    REQUIRE(b.open({"lo"}, 1, kUidB, 2000, hooks).ok());
    REQUIRE(a.add_peer(1, kUidB, "b", b.addresses()));
    REQUIRE(b.add_peer(0, kUidA, "a", a.addresses()));
  }

  // Progress on both until `done` (false after 20 s).
  bool until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      a.progress();
      b.progress();
    }
    return true;
  }

  // A whole stripe of `data` from a to b's `into`: the landed count it reached.
  bool stripe(std::uint64_t id, const std::vector<unsigned char>& data, std::vector<unsigned char>& into) {
    into.assign(data.size(), 0);
    const std::size_t before = landed.size();
    a.begin_send(id, 1, data.data(), data.size());
    std::uint64_t frag_bytes = 0;
    std::uint32_t frags = 0;
    const std::uint64_t token = b.begin_recv(0, id, into.data(), into.size(), {}, frag_bytes, frags);
    REQUIRE(a.go(1, id, token, frag_bytes, frags));
    const bool in = until([&] { return landed.size() > before; });
    a.end_send(id);  // split_done
    return in;
  }
};

std::vector<unsigned char> pattern(std::size_t len, unsigned seed) {
  std::vector<unsigned char> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<unsigned char>(i * 13 + seed + (i >> 10));
  return v;
}

// A TCP connection to task 1's link, as anyone on the network could make.
int connect_to(const LinkSet& target) {
  const lapi::internal::LinkAddress at = target.addresses().at(0);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = at.ip;
  to.sin_port = at.port;
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  return fd;
}

// Whether task 1 closed `fd` (read gives end of file) while both sets progress.
bool closed_by_target(Pair& pair, int fd) {
  return pair.until([fd] {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    char c;
    return ::recv(fd, &c, 1, MSG_DONTWAIT) == 0;
  });
}

}  // namespace

TEST_CASE("a stripe lands in place, in fragments, counted per link") {
  Pair pair;
  const auto data = pattern((1 << 20) + 123, 5);
  std::vector<unsigned char> into;
  REQUIRE(pair.stripe(7, data, into));
  CHECK(into == data);
  REQUIRE(pair.landed.size() == 1);
  CHECK(pair.landed[0].src == 0);
  CHECK(pair.landed[0].id == 7);
  const lapi::LinkStats sent = pair.a.stats();
  REQUIRE(sent.links.size() == 1);
  CHECK(sent.links[0].interface == "lo");
  CHECK(sent.links[0].bytes_sent == data.size());
  CHECK(sent.links[0].fragments_sent == 17);  // 64 KiB each, the last one 123 bytes
  CHECK(sent.stripes_sent == 1);
  CHECK(pair.b.stats().stripes_received == 1);
  CHECK(pair.over_ucx == 0);
  CHECK_FALSE(pair.a.active());
  CHECK_FALSE(pair.b.active());
}

TEST_CASE("stripe_go naming no stripe, the wrong task or a layout that does not cover it is refused") {
  Pair pair;
  const auto data = pattern(300 * 1024, 1);
  CHECK_FALSE(pair.a.go(1, 99, 5, 65536, 5));  // no such stripe
  pair.a.begin_send(8, 1, data.data(), data.size());
  CHECK_FALSE(pair.a.go(0, 8, 5, 65536, 5));        // not from its target
  CHECK_FALSE(pair.a.go(1, 8, 0, 65536, 5));        // no token
  CHECK_FALSE(pair.a.go(1, 8, 5, 0, 5));            // no fragment size
  CHECK_FALSE(pair.a.go(1, 8, 5, 65536, 4));        // 4 x 64 KiB do not cover 300 KiB
  CHECK_FALSE(pair.a.go(1, 8, 5, 1ull << 33, 1));   // a fragment over 4 GiB
  // A well-formed go for a token task 1 never handed out: its fragments are read and dropped.
  CHECK(pair.a.go(1, 8, 0x700000001, 65536, 5));
  CHECK_FALSE(pair.a.go(1, 8, 0x700000001, 65536, 5));  // twice
  CHECK(pair.until([&] { return pair.a.stats().links[0].fragments_sent == 5; }));
  pair.a.end_send(8);
  CHECK(pair.landed.empty());
  // The link still carries the next stripe.
  std::vector<unsigned char> into;
  REQUIRE(pair.stripe(9, data, into));
  CHECK(into == data);
}

TEST_CASE("place(): the wrong task, index or length is invalid; a fragment in already is dropped") {
  Pair pair;
  std::vector<unsigned char> buf(200 * 1024);
  std::uint64_t frag_bytes = 0;
  std::uint32_t frags = 0;
  const std::uint64_t token = pair.b.begin_recv(0, 3, buf.data(), buf.size(), {}, frag_bytes, frags);
  REQUIRE(frag_bytes == 65536);
  REQUIRE(frags == 4);
  bool valid = true;
  CHECK(pair.b.place(1, token, 0, 65536, valid) == nullptr);
  CHECK_FALSE(valid);
  CHECK(pair.b.place(0, token, 4, 65536, valid) == nullptr);
  CHECK_FALSE(valid);
  CHECK(pair.b.place(0, token, 3, 65536, valid) == nullptr);  // the last one is 8 KiB
  CHECK_FALSE(valid);
  CHECK(pair.b.place(0, token, 3, 8192, valid) == reinterpret_cast<std::byte*>(buf.data()) + 3 * 65536);
  CHECK(valid);
  CHECK(pair.b.place(0, token + 1, 0, 65536, valid) == nullptr);  // no such stripe: a late copy
  CHECK(valid);
  pair.b.fragment_landed(0, token, 1);
  CHECK(pair.b.place(0, token, 1, 65536, valid) == nullptr);  // in already
  CHECK(valid);
  for (std::uint32_t i = 0; i < frags; ++i) pair.b.fragment_landed(0, token, i);
  pair.b.fragment_landed(0, token, 0);  // twice: nothing more
  REQUIRE(pair.landed.size() == 1);
  CHECK(pair.landed[0].id == 3);
  CHECK(pair.b.place(0, token, 0, 65536, valid) == nullptr);  // landed: every copy is late
  CHECK(valid);
}

TEST_CASE("a stranger at a link's port loses its connection; the link goes on working") {
  Pair pair;
  const auto data = pattern(256 * 1024, 9);
  std::vector<unsigned char> into;
  REQUIRE(pair.stripe(1, data, into));  // task 0's connection is up

  SUBCASE("garbage") {
    const int fd = connect_to(pair.b);
    const char junk[] = "GET / HTTP/1.0\r\n\r\n";
    REQUIRE(::send(fd, junk, sizeof junk - 1, MSG_NOSIGNAL) > 0);
    CHECK(closed_by_target(pair, fd));
    ::close(fd);
  }
  SUBCASE("a hello naming no task") {
    const int fd = connect_to(pair.b);
    const std::uint64_t hello[2] = {kHelloMagic, 42};
    REQUIRE(::send(fd, hello, sizeof hello, MSG_NOSIGNAL) == sizeof hello);
    CHECK(closed_by_target(pair, fd));
    ::close(fd);
  }
  SUBCASE("task 0 impersonated, with a fragment that does not fit the stripe it names") {
    std::vector<unsigned char> buf(128 * 1024);
    std::uint64_t frag_bytes = 0;
    std::uint32_t frags = 0;
    const std::uint64_t token = pair.b.begin_recv(0, 2, buf.data(), buf.size(), {}, frag_bytes, frags);
    const int fd = connect_to(pair.b);
    const std::uint64_t hello[2] = {kHelloMagic, kUidA};
    unsigned char head[16];
    const std::uint32_t index = 0, len = 1 << 20;  // the fragment is 64 KiB
    std::memcpy(head, &token, 8);
    std::memcpy(head + 8, &index, 4);
    std::memcpy(head + 12, &len, 4);
    REQUIRE(::send(fd, hello, sizeof hello, MSG_NOSIGNAL) == sizeof hello);
    REQUIRE(::send(fd, head, sizeof head, MSG_NOSIGNAL) == sizeof head);
    CHECK(closed_by_target(pair, fd));
    ::close(fd);
    bool valid = true;
    CHECK(pair.b.place(0, token, 0, 65536, valid) != nullptr);  // nothing landed
  }
  REQUIRE(pair.stripe(4, data, into));
  CHECK(into == data);
}

TEST_CASE("a failed task's stripes are dropped both ways: nothing is left to poll for") {
  Pair pair;
  const auto data = pattern(1 << 20, 3);
  std::vector<unsigned char> buf(data.size());
  std::uint64_t frag_bytes = 0;
  std::uint32_t frags = 0;
  pair.a.begin_send(5, 1, data.data(), data.size());
  const std::uint64_t token = pair.b.begin_recv(0, 5, buf.data(), buf.size(), {}, frag_bytes, frags);
  REQUIRE(pair.a.go(1, 5, token, frag_bytes, frags));
  CHECK(pair.a.active());
  CHECK(pair.b.active());
  pair.a.drop_peer(1);
  pair.b.drop_peer(0);
  CHECK_FALSE(pair.a.active());
  CHECK_FALSE(pair.b.active());
  CHECK_FALSE(pair.a.reaches(1));
  bool valid = false;
  CHECK(pair.b.place(0, token, 0, 65536, valid) == nullptr);  // gone: any copy is late
  CHECK(valid);
  CHECK_FALSE(pair.a.go(1, 5, token, frag_bytes, frags));
  CHECK(pair.landed.empty());
}

TEST_CASE("LAPIS_LINKS' interface must exist here with an IPv4 address") {
  LinkSet links;
  const lapi::Status s = links.open({"nosuchif0"}, 0, kUidA, 2000, {});
  CHECK(s.code() == lapi::Errc::no_connectivity);
  CHECK(s.message().find("interface 'nosuchif0'") != std::string::npos);
  CHECK_FALSE(links.enabled());
  CHECK(links.addresses().empty());
}

TEST_CASE("link watch: a stranger at its port is ignored; a task gone without goodbye is reported") {
  using lapi::internal::LinkWatch;
  LinkWatch low, high;  // tasks 0 and 1 (0 connects to 1)
  REQUIRE(low.listen("lo").ok());
  REQUIRE(high.listen("lo").ok());
  REQUIRE(high.ip() != 0);
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::pair<lapi::TaskId, std::string>> heard;
  const auto report = [&](lapi::TaskId t, const std::string& why) {
    std::lock_guard lock(m);
    heard.emplace_back(t, why);
    cv.notify_all();
  };
  // A stranger first, saying nothing useful: task 1 drops it and still takes task 0.
  const int stranger = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = high.ip();
  to.sin_port = high.port();
  REQUIRE(::connect(stranger, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  REQUIRE(::send(stranger, "0123456789abcdef", 16, MSG_NOSIGNAL) == 16);
  lapi::Status high_started;
  std::thread accepting([&] {
    high_started = high.start(1, kUidB, {{0, kUidA, low.ip(), low.port()}}, 2000, report);
  });
  REQUIRE(low.start(0, kUidA, {{1, kUidB, high.ip(), high.port()}}, 2000, report).ok());
  accepting.join();
  REQUIRE(high_started.ok());
  ::close(stranger);
  low.stop(false);  // task 0 ends without its goodbye
  std::unique_lock lock(m);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return !heard.empty(); }));
  CHECK(heard.size() == 1);
  CHECK(heard[0].first == 0);
  CHECK(heard[0].second.find("closed without a goodbye") != std::string::npos);
  lock.unlock();
  high.stop(true);
}
