// Striped Amsends (LAPIS_LINKS) between 2 tasks on 2 test hosts, run by
// tests/runtime/hosts_links_test. Each message's content is checked where it lands.
//   STRIPE_MODE=both: both tasks send to each other at once, sizes around the fragment and
//     stripe limits (the smallest striped one is two fragments); every striped byte went over some link, both links carried data.
//   STRIPE_MODE=cut: task 0 streams to task 1 (4 messages in flight); after STRIPE_CUT_AFTER
//     have landed, task 1 deletes its host's interface STRIPE_CUT (the link goes down under the
//     stream). Everything still lands intact, once; task 0's link over it failed once.
// Each task prints "stats: ..." on stdout for the test to read.

#include <doctest/doctest.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/core/rank_context.hpp"

extern char** environ;

using namespace lapis::testing;

namespace {

constexpr int kWindow = 4;
constexpr std::size_t kStripeMin = 128 * 1024;  // LAPIS_STRIPE_MIN's default: striped from here

unsigned char pattern(std::uint32_t src, std::uint32_t seq, std::size_t i) {
  return static_cast<unsigned char>(src * 131 + seq * 17 + i * 7 + (i >> 12));
}

struct Inbox {
  std::atomic<int> landed{0};
  std::atomic<std::uint64_t> wrong{0};
  std::atomic<int> bad_header{0};
};
Inbox g_inbox;

// Each message lands in a buffer of its own: stripes complete in any order.
struct Arrival {
  std::uint32_t src;
  std::uint32_t seq;
  std::vector<unsigned char> data;
};

void on_complete(lapi::Context&, void* user_info, void*) {
  const std::unique_ptr<Arrival> a(static_cast<Arrival*>(user_info));
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < a->data.size(); ++i) wrong += a->data[i] != pattern(a->src, a->seq, i);
  g_inbox.wrong.fetch_add(wrong);
  g_inbox.landed.fetch_add(1);
}

lapi::Landing on_header(lapi::Context&, const lapi::AmHeaderInfo& info) {
  std::uint32_t seq = 0;
  if (info.uhdr_len != sizeof seq) {
    g_inbox.bad_header.fetch_add(1);
    return {};
  }
  std::memcpy(&seq, info.uhdr, sizeof seq);
  auto* a = new Arrival{info.src, seq, std::vector<unsigned char>(info.data_len)};
  return {a->data.data(), on_complete, a, nullptr};
}

std::size_t env_count(const char* name, std::size_t otherwise) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : otherwise;
}

void cut_link(const char* ifname) {
  char* args[] = {const_cast<char*>("ip"), const_cast<char*>("link"), const_cast<char*>("del"),
                  const_cast<char*>(ifname), nullptr};
  pid_t pid = 0;
  int status = 0;
  REQUIRE(posix_spawnp(&pid, "ip", nullptr, nullptr, args, environ) == 0);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  std::printf("task 1: cut %s after %d messages\n", ifname, g_inbox.landed.load());
  std::fflush(stdout);
}

void print_stats(lapi::Context& ctx) {
  const lapi::LinkStats s = ctx.link_stats();
  std::string line = "stats: task " + std::to_string(ctx.task_id());
  for (const lapi::LinkStats::Link& l : s.links) {
    line += " " + l.interface + "=" + std::to_string(l.bytes_sent) + "/" + std::to_string(l.fragments_sent) +
            "/failed" + std::to_string(l.failed);
  }
  line += " stripes_sent=" + std::to_string(s.stripes_sent) + " stripes_received=" +
          std::to_string(s.stripes_received) + " resent=" + std::to_string(s.fragments_resent) +
          " over_ucx=" + std::to_string(s.fragments_over_ucx) + " peers=" + std::to_string(s.peers);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("striped amsends land intact") {
  lapi::Context& ctx = rank_context();
  REQUIRE(ctx.num_tasks() == 2);
  const lapi::TaskId me = ctx.task_id();
  const lapi::TaskId other = 1 - me;
  const std::string mode = std::getenv("STRIPE_MODE") != nullptr ? std::getenv("STRIPE_MODE") : "both";
  const bool cut = mode == "cut";
  LAPI_OK(ctx.register_handler(1, on_header, nullptr));
  lapi::PathInfo path;
  LAPI_OK(ctx.path_of(other, path));
  CHECK(path.links > 0);
  CHECK_FALSE(path.same_host);  // stripes go only to tasks on other hosts
  LAPI_OK(ctx.barrier());

  // Sizes: below the stripe limit (UCX alone), one fragment, a fragment and a bit, many
  // fragments with a short last one.
  std::vector<std::size_t> sizes;
  const std::size_t count = env_count("STRIPE_MESSAGES", 24);
  const std::size_t base = env_count("STRIPE_BYTES", 1 << 20);
  for (std::size_t i = 0; i < count; ++i) {
    static const std::size_t kShapes[] = {0, 1, 4097, kStripeMin - 1, 0, 3 << 20};
    const std::size_t shape = kShapes[i % 6];
    sizes.push_back(cut ? base : shape == 0 ? base : shape == 1 ? kStripeMin : shape == 4097 ? base + 4097 : shape);
  }
  const bool sends = !cut || me == 0;
  const std::size_t expected = !cut || me == 1 ? sizes.size() : 0;
  const std::size_t cut_after = env_count("STRIPE_CUT_AFTER", 6);
  bool did_cut = false;

  // A buffer per message: they complete in any order, so a buffer is not reused.
  std::vector<std::vector<unsigned char>> out(sizes.size());
  lapi::Counter completion, origin;
  for (std::uint32_t seq = 0; sends && seq < sizes.size(); ++seq) {
    // At most kWindow in flight (completion: the target's handler checked one).
    if (seq >= kWindow) LAPI_OK(ctx.waitcntr(completion, 1));
    std::vector<unsigned char>& buf = out[seq];
    buf.resize(sizes[seq]);
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = pattern(me, seq, i);
    LAPI_OK(ctx.amsend(other, 1, &seq, sizeof seq, buf.data(), buf.size(), {{}, &origin, &completion}));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t remaining = sends ? std::min<std::size_t>(sizes.size(), kWindow) : 0;
  while ((remaining > 0 || static_cast<std::size_t>(g_inbox.landed.load()) < expected) &&
         std::chrono::steady_clock::now() < deadline) {
    if (remaining > 0 && completion.get() > 0) {
      LAPI_OK(ctx.waitcntr(completion, 1));
      --remaining;
    }
    if (cut && me == 1 && !did_cut && static_cast<std::size_t>(g_inbox.landed.load()) >= cut_after) {
      cut_link(std::getenv("STRIPE_CUT"));
      did_cut = true;
    }
    LAPI_OK(ctx.probe());
  }
  CHECK(remaining == 0);
  CHECK(static_cast<std::size_t>(g_inbox.landed.load()) == expected);
  CHECK(g_inbox.wrong.load() == 0);
  CHECK(g_inbox.bad_header.load() == 0);
  LAPI_OK(ctx.gfence());
  print_stats(ctx);

  const lapi::LinkStats stats = ctx.link_stats();
  std::size_t striped = 0, striped_bytes = 0;
  for (std::size_t size : sizes) {
    striped += size >= kStripeMin;
    striped_bytes += size >= kStripeMin ? size : 0;
  }
  // Once no link to the target is left, its Amsends go through UCX unstriped.
  const bool lost_every_link = cut && stats.links.size() == 1;
  if (lost_every_link) {
    if (sends) CHECK(stats.stripes_sent >= cut_after);
    if (sends) CHECK(stats.stripes_sent < striped);
    if (expected > 0) CHECK(stats.stripes_received >= cut_after);
  } else if (sends) {
    CHECK(stats.stripes_sent == striped);
    std::uint64_t bytes = 0;
    for (const auto& l : stats.links) {
      bytes += l.bytes_sent;
      CHECK(l.bytes_sent > 0);  // every link carried a share
    }
    CHECK(bytes >= striped_bytes);  // more only when fragments were resent
  }
  if (expected > 0 && !lost_every_link) CHECK(stats.stripes_received == striped);
  if (cut && me == 0) {
    // The cut link failed once, the others never; with no other link left, UCX carried the rest.
    const std::string gone = std::getenv("STRIPE_CUT");
    for (const auto& l : stats.links) CHECK(l.failed == (l.interface == gone ? 1u : 0u));
    CHECK(stats.fragments_resent > 0);
    if (stats.links.size() == 1) CHECK(stats.fragments_over_ucx > 0);
    else CHECK(stats.fragments_over_ucx == 0);
  }
  if (cut && me == 1) CHECK(did_cut);
}
