// Early-arrival flood: every rank but 0 sends FLOOD_COUNT (default 1000000)
// messages of FLOOD_SIZE bytes (default 8, at least 8) to rank 0 with blocking standard sends; rank 0 posts no
// receive until every sender has buffered as much as it may (its held copies
// reached LAPIS_HELD_SEND_MAX, or it sent everything): past that a sender's
// blocking send waits. Nothing may be lost, everything must arrive in
// per-sender order, rank 0's memory may grow by at most FLOOD_MAX_GROWTH_MIB
// (default 64) and each sender's by FLOOD_MAX_SENDER_GROWTH_MIB (default 96).
// A second case makes rank 0 wait for a message that sits behind more
// unexpected traffic than its window holds (flow-control pulls).
// Run by flood_test.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tests/mpcpi/rank_engine.hpp"

using namespace lapis::testing;
using mpcpi::Request;
using mpcpi::SendMode;
using mpcpi::Status;

namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtol(v, nullptr, 10) : fallback;
}

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
long status_kib(const std::string& field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  }
  return -1;
}

void reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";  // resets VmHWM to the current RSS (Linux >= 4.0)
}

}  // namespace

TEST_CASE("a million small messages per sender, receiver posts nothing until all were sent") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const long count = env_long("FLOOD_COUNT", 1000000);
  const long max_growth_mib = env_long("FLOOD_MAX_GROWTH_MIB", 64);
  const long max_sender_growth_mib = env_long("FLOOD_MAX_SENDER_GROWTH_MIB", 96);
  // The first 8 bytes of each message say who sent it and its number.
  const std::size_t size = static_cast<std::size_t>(std::max(8L, env_long("FLOOD_SIZE", 8)));
  std::vector<std::uint8_t> message(size, 0x5a);
  const std::uint32_t data_ctx = 301;
  const std::uint32_t ctrl_ctx = 302;
  barrier();
  const auto start = std::chrono::steady_clock::now();
  if (me != 0) {
    reset_peak_rss();
    const long rss_before = status_kib("VmRSS");
    // "Full", on another context (it must get past the held data): sent once
    // the next held copy might not fit under the cap, or after the last.
    const std::uint64_t cap = engine().options().held_send_max;
    const std::uint64_t room = size + 1024;  // more than one held copy and its bookkeeping
    bool told = false;
    auto tell_full = [&] {
      require_ok(engine().send(nullptr, 0, 0, 2, ctrl_ctx, SendMode::standard), "send full");
      told = true;
    };
    for (long i = 0; i < count; ++i) {
      if (!told && engine().stats().held_copy_bytes + room > cap) tell_full();
      const std::uint64_t payload = (static_cast<std::uint64_t>(me) << 40) | static_cast<std::uint64_t>(i);
      std::memcpy(message.data(), &payload, sizeof payload);
      require_ok(engine().send(message.data(), size, 0, 1, data_ctx, SendMode::standard), "send");
    }
    if (!told) tell_full();
    const mpcpi::EngineStats stats = engine().stats();
    if (env_long("FLOOD_EXPECT_HOLD", 0) != 0) CHECK(stats.held > 0);
    if (env_long("FLOOD_EXPECT_UNCOPIED", 0) != 0) CHECK(stats.held_uncopied > 0);
    const double growth_mib = static_cast<double>(status_kib("VmHWM") - rss_before) / 1024.0;
    std::printf("flood: sender %d growth %.1f MiB, %llu held (%llu by reference, copy cap %llu B)\n", me,
                growth_mib, static_cast<unsigned long long>(stats.held),
                static_cast<unsigned long long>(stats.held_uncopied), static_cast<unsigned long long>(cap));
    std::fflush(stdout);
    CHECK(growth_mib <= static_cast<double>(max_sender_growth_mib));
  } else {
    reset_peak_rss();
    const long rss_before = status_kib("VmRSS");
    for (int s = 1; s < n; ++s) require_ok(engine().recv(nullptr, 0, s, 2, ctrl_ctx, nullptr), "recv full");
    const auto sent = std::chrono::steady_clock::now();
    std::vector<long> next(n, 0);
    for (long k = 0; k < count * (n - 1); ++k) {
      std::uint64_t payload = 0;
      Status st;
      require_ok(engine().recv(message.data(), size, mpcpi::kAnySource, 1, data_ctx, &st), "recv");
      REQUIRE(st.bytes == size);
      std::memcpy(&payload, message.data(), sizeof payload);
      const int src = static_cast<int>(payload >> 40);
      const long i = static_cast<long>(payload & ((std::uint64_t{1} << 40) - 1));
      REQUIRE(src == st.source);
      REQUIRE(i == next[src]);  // nothing lost, nothing out of order
      ++next[src];
    }
    const long peak = status_kib("VmHWM");
    const double growth_mib = static_cast<double>(peak - rss_before) / 1024.0;
    const auto done = std::chrono::steady_clock::now();
    std::printf(
        "flood: %d senders x %ld messages of %zu B; receiver RSS before %ld KiB, peak %ld KiB, growth %.1f "
        "MiB; all sent after %.2f s, all received after %.2f s\n",
        n - 1, count, size, rss_before, peak, growth_mib,
        std::chrono::duration<double>(sent - start).count(),
        std::chrono::duration<double>(done - start).count());
    std::fflush(stdout);
    CHECK(growth_mib <= static_cast<double>(max_growth_mib));
  }
  barrier();
}

TEST_CASE("a receive for a message behind a full window is still satisfied") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const long count = env_long("FLOOD_BEHIND", 20000);
  const std::uint32_t ctx = 303;
  const std::size_t big = std::min<std::size_t>(engine().options().eager_limit, 1 << 20) + 10;
  std::vector<std::uint8_t> big_out(big, static_cast<std::uint8_t>(me));
  if (me != 0) {
    std::vector<Request*> large;
    for (long i = 0; i < count; ++i) {
      const std::uint64_t payload = static_cast<std::uint64_t>(i);
      require_ok(engine().send(&payload, sizeof payload, 0, 1, ctx, SendMode::standard), "send");
      if (i % 1000 == 500) {  // some rendezvous traffic held back too
        Request* r = nullptr;
        require_ok(engine().isend(big_out.data(), big, 0, 4, ctx, SendMode::standard, r), "isend");
        large.push_back(r);
      }
    }
    const std::uint64_t last = 0xfeed;
    require_ok(engine().send(&last, sizeof last, 0, 3, ctx, SendMode::standard), "send last");
    for (Request* r : large) require_ok(engine().wait(r, nullptr), "wait large");
  } else {
    // First the message sent last, from every sender (same context: the
    // receiver has to pull it through the backlog).
    for (int s = 1; s < n; ++s) {
      std::uint64_t v = 0;
      Status st;
      if (s % 2 == 1) {  // a blocking probe must pull as well as a receive
        require_ok(engine().probe(s, 3, ctx, &st), "probe last");
        CHECK(st.bytes == sizeof v);
      }
      require_ok(engine().recv(&v, sizeof v, s, 3, ctx, nullptr), "recv last");
      CHECK(v == 0xfeed);
    }
    if (env_long("FLOOD_EXPECT_PULLS", 0) != 0) CHECK(engine().stats().pulls_sent > 0);
    std::vector<std::uint8_t> big_in(big);
    for (int s = 1; s < n; ++s) {
      for (long i = 0; i < count; ++i) {
        std::uint64_t v = 0;
        require_ok(engine().recv(&v, sizeof v, s, 1, ctx, nullptr), "recv");
        REQUIRE(v == static_cast<std::uint64_t>(i));
        if (i % 1000 == 500) {
          Status st;
          require_ok(engine().recv(big_in.data(), big, s, 4, ctx, &st), "recv large");
          REQUIRE(big_in[big - 1] == static_cast<std::uint8_t>(s));
        }
      }
    }
  }
  barrier();
}
