// A program started without lapirun runs as one task: everything works
// against itself, and Term makes later calls fail cleanly.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "tests/core/lapi_ok.hpp"

namespace {

std::vector<unsigned char> g_landing;
int g_completed = 0;

lapi::Landing land(lapi::Context&, const lapi::AmHeaderInfo& info) {
  g_landing.assign(info.data_len, 0);
  return {g_landing.data(), [](lapi::Context&, void*, void*) { ++g_completed; }, nullptr, nullptr};
}

}  // namespace

TEST_CASE("singleton: one task talks to itself in every policy") {
  for (auto policy : {lapi::CompletionPolicy::inline_run, lapi::CompletionPolicy::thread,
                      lapi::CompletionPolicy::fiber}) {
    for (auto mode : {lapi::ProgressMode::polling, lapi::ProgressMode::interrupt}) {
      CAPTURE(static_cast<int>(policy));
      CAPTURE(static_cast<int>(mode));
      lapi::Config config;
      config.policy = policy;
      config.mode = mode;
      std::unique_ptr<lapi::Context> ctx;
      LAPI_OK(lapi::Context::init(config, ctx));
      CHECK(ctx->task_id() == 0);
      CHECK(ctx->num_tasks() == 1);
      std::int64_t v = -1;
      LAPI_OK(ctx->qenv(lapi::Query::completion_policy, v));
      CHECK(v == static_cast<std::int64_t>(policy));
      LAPI_OK(ctx->qenv(lapi::Query::interrupt_mode, v));
      CHECK(v == (mode == lapi::ProgressMode::interrupt));

      LAPI_OK(ctx->register_handler(1, land));
      // Harmless in either mode and before any wait (polling: a no-op;
      // interrupt: the progress thread simply takes over).
      ctx->hand_over_progress();
      lapi::Counter target, origin, completion;
      lapi::RemoteCounter handle;
      LAPI_OK(ctx->register_counter(target, handle));
      g_completed = 0;
      for (std::size_t len : {std::size_t{0}, std::size_t{100}, std::size_t{1} << 20}) {
        std::vector<unsigned char> data(len, 0x5a);
        LAPI_OK(ctx->amsend(0, 1, nullptr, 0, data.data(), len, {handle, &origin, &completion}));
        LAPI_OK(ctx->waitcntr(target, 1));
        LAPI_OK(ctx->waitcntr(completion, 1));
        CHECK(g_landing == data);
      }
      CHECK(g_completed == 3);

      void* window = nullptr;
      LAPI_OK(ctx->alloc_registered(4096, window));
      std::memset(window, 0, 4096);
      const auto base = reinterpret_cast<std::uint64_t>(window);
      std::int64_t prev = 0;
      lapi::Counter done;
      LAPI_OK(ctx->rmw64(lapi::RmwOp::fetch_and_add, 0, base, 5, 0, &prev, &done));
      LAPI_OK(ctx->rmw64(lapi::RmwOp::compare_and_swap, 0, base, 9, 5, &prev, &done));
      LAPI_OK(ctx->waitcntr(done, 2));
      CHECK(prev == 5);
      std::int64_t now = 0;
      std::memcpy(&now, window, 8);
      CHECK(now == 9);
      // Every op on our own memory (UCX's self endpoint drops fetch-and-or).
      LAPI_OK(ctx->rmw64(lapi::RmwOp::fetch_and_or, 0, base, 6, 0, &prev, &done));
      LAPI_OK(ctx->rmw32(lapi::RmwOp::swap, 0, base + 8, 41, 0, nullptr, &done));
      std::int32_t prev32 = 0;
      LAPI_OK(ctx->rmw32(lapi::RmwOp::fetch_and_add, 0, base + 8, 1, 0, &prev32, &done));
      LAPI_OK(ctx->waitcntr(done, 3));
      CHECK(prev == 9);
      CHECK(prev32 == 41);
      std::memcpy(&now, window, 8);
      CHECK(now == 15);
      const lapi::Status unregistered = ctx->rmw64(lapi::RmwOp::swap, 0, base + (1 << 20), 1, 0, nullptr, nullptr);
      CHECK(unregistered.code() == lapi::Errc::not_registered);
      const char msg[] = "hello";
      LAPI_OK(ctx->put(0, sizeof msg, base + 64, msg, {handle}));
      LAPI_OK(ctx->waitcntr(target, 1));
      CHECK(std::memcmp(static_cast<char*>(window) + 64, msg, sizeof msg) == 0);
      std::vector<std::uint64_t> all(1);
      LAPI_OK(ctx->address_init(77, all));
      CHECK(all[0] == 77);
      LAPI_OK(ctx->gfence());
      LAPI_OK(ctx->free_registered(window));

      // Switching policy and mode at run time keeps working.
      LAPI_OK(ctx->senv(lapi::Query::completion_policy, static_cast<int>(lapi::CompletionPolicy::inline_run)));
      LAPI_OK(ctx->senv(lapi::Query::interrupt_mode, mode == lapi::ProgressMode::polling));
      LAPI_OK(ctx->amsend(0, 1, nullptr, 0, msg, sizeof msg, {handle}));
      LAPI_OK(ctx->waitcntr(target, 1));

      CHECK(ctx->handlers_may_run_concurrently() ==
            (policy == lapi::CompletionPolicy::thread || (ctx->qenv(lapi::Query::interrupt_mode, v).ok() && v == 1)));
      // The flag a layer above may keep follows the switches.
      CHECK(ctx->concurrency_switch().load() == ctx->handlers_may_run_concurrently());
      // An unregistered handler's messages are refused and reported.
      LAPI_OK(ctx->unregister_handler(1));
      lapi::Counter refused;
      LAPI_OK(ctx->amsend(0, 1, nullptr, 0, nullptr, 0, {{}, nullptr, &refused}));
      CHECK(ctx->waitcntr(refused, 1).code() == lapi::Errc::no_callback_reg);

      LAPI_OK(ctx->term());
      const lapi::Status after = ctx->amsend(0, 1, nullptr, 0, nullptr, 0);
      CHECK(after.code() == lapi::Errc::terminated);
      CHECK(ctx->term().code() == lapi::Errc::terminated);
      {
        // A DrivingProgress outliving its context's progress thread does
        // nothing; the calls it scopes are refused as usual.
        const lapi::Context::DrivingProgress driving(*ctx);
        CHECK(ctx->probe().code() == lapi::Errc::terminated);
      }
    }
  }
}

TEST_CASE("a UCX setting that breaks start-up is named in the error") {
  ::setenv("UCX_TLS", "bogus", 1);
  std::unique_ptr<lapi::Context> ctx;
  const lapi::Status s = lapi::Context::init(lapi::Config{}, ctx);
  ::unsetenv("UCX_TLS");
  CHECK(s.code() == lapi::Errc::transport);
  CHECK(s.message().find("UCX_TLS=bogus") != std::string::npos);
}

TEST_CASE("an allocation larger than the machine is refused at once") {
  std::unique_ptr<lapi::Context> ctx;
  LAPI_OK(lapi::Context::init(lapi::Config{}, ctx));
  void* p = nullptr;
  const lapi::Status s = ctx->alloc_registered(std::size_t{1} << 50, p);
  CHECK(s.code() == lapi::Errc::memory_exhausted);
  CHECK(s.message().find("len=1125899906842624") != std::string::npos);
  CHECK(p == nullptr);
  LAPI_OK(ctx->alloc_registered(4096, p));  // an ordinary size still works
  LAPI_OK(ctx->free_registered(p));
  LAPI_OK(ctx->term());
}

namespace {

// Each value of `var` is refused at start-up with an error naming it.
void expect_rejected(const char* var, std::initializer_list<const char*> bad_values) {
  for (const char* bad : bad_values) {
    CAPTURE(bad);
    ::setenv(var, bad, 1);
    lapi::Config config;
    const lapi::Status s = lapi::Config::from_env(config);
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(s.message().find(var) != std::string::npos);
  }
  ::unsetenv(var);
}

}  // namespace

namespace {
void ignore_failure(lapi::Context&, lapi::TaskId, const char*, void*) {}
template <int N>
void ignore_failure_n(lapi::Context&, lapi::TaskId, const char*, void*) {}
}  // namespace

TEST_CASE("peer-failure handlers: null refused, the same one replaced, at most kMaxPeerFailureHandlers") {
  lapi::Config config;
  std::unique_ptr<lapi::Context> ctx;
  LAPI_OK(lapi::Context::init(config, ctx));
  const lapi::Status null = ctx->add_peer_failure_handler(nullptr, nullptr);
  CHECK(null.code() == lapi::Errc::parm_null);
  CHECK(null.message().find("handler is null") != std::string::npos);
  int a = 0, b = 0;
  LAPI_OK(ctx->add_peer_failure_handler(ignore_failure, &a));
  LAPI_OK(ctx->add_peer_failure_handler(ignore_failure, &b));  // replaces: takes no new place
  LAPI_OK(ctx->add_peer_failure_handler(ignore_failure_n<1>, nullptr));
  LAPI_OK(ctx->add_peer_failure_handler(ignore_failure_n<2>, nullptr));
  LAPI_OK(ctx->add_peer_failure_handler(ignore_failure_n<3>, nullptr));
  const lapi::Status full = ctx->add_peer_failure_handler(ignore_failure_n<4>, nullptr);
  CHECK(full.code() == lapi::Errc::all_hndl_in_use);
  CHECK_FALSE(ctx->peer_failed(0));
  CHECK_FALSE(ctx->any_peer_failed());
  LAPI_OK(ctx->term());
}

TEST_CASE("invalid LAPIS_* settings are a clear start-up error") {
  expect_rejected("LAPIS_POLICY", {"sometimes"});
  expect_rejected("LAPIS_AM_EAGER_LIMIT", {"-4"});
  expect_rejected("LAPIS_TAKEOVER_GRACE_US", {"0", "fast", "20000000"});
  expect_rejected("LAPIS_PROGRESS_NICE", {"-21", "20", "high", "5x", "+"});
  expect_rejected("LAPIS_UCX_POLL_EVERY", {"0", "4097", "often", "-1"});
  expect_rejected("LAPIS_SHM", {"yes", "2", "-1"});
  expect_rejected("LAPIS_TRANSPORTS", {"udp", "SHM", "shm,shm", "tcp,", ",shm", "shm;tcp"});
  expect_rejected("LAPIS_PATHS", {"a=b", "h1-h2=udp", "h1-h2", "h1-h2=tcp;"});
  {
    // Well-formed, but naming a host this job lacks: refused at init, when the hosts are known.
    ::setenv("LAPIS_PATHS", "nosuchhost-*=tcp", 1);
    lapi::Config config;
    REQUIRE(lapi::Config::from_env(config).ok());
    std::unique_ptr<lapi::Context> ctx;
    const lapi::Status s = lapi::Context::init(config, ctx);
    INFO(s.message());
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(s.message().find("'nosuchhost-*=tcp' names a host not in this job") != std::string::npos);
    ::unsetenv("LAPIS_PATHS");
  }
  expect_rejected("LAPIS_SPLIT_COPY", {"on", "3"});
  expect_rejected("LAPIS_STAGED_COPY", {"on", "2", "auto"});
  expect_rejected("LAPIS_SPLIT_MIN", {"-1", "64k", "big"});
  expect_rejected("LAPIS_CHECKSUM", {"crc", "CRC32C", "1"});
  expect_rejected("LAPIS_NET_IF", {"nosuchif0", "lo0"});
  {
    ::setenv("LAPIS_NET_IF", "nosuchif0", 1);
    lapi::Config config;
    const lapi::Status s = lapi::Config::from_env(config);
    INFO(s.message());
    CHECK(s.message().find("no such network interface (up here: ") != std::string::npos);
    CHECK(s.message().find(" lo") != std::string::npos);  // loopback is always up
    ::setenv("LAPIS_NET_IF", "lo", 1);
    REQUIRE(lapi::Config::from_env(config).ok());
    CHECK(config.net_if == "lo");
    std::unique_ptr<lapi::Context> ctx;  // UCX restricted to it
    LAPI_OK(lapi::Context::init(config, ctx));
    LAPI_OK(ctx->term());
    ::unsetenv("LAPIS_NET_IF");
  }
  expect_rejected("LAPIS_LINKS", {"nosuchif0", "lo,lo", "lo,", ",lo", "lo,nosuchif0", "lo,lo1,lo2,lo3,lo4"});
  expect_rejected("LAPIS_STRIPE_MIN", {"0", "4095", "big", "-1"});
  {
    ::setenv("LAPIS_LINKS", "lo,nosuchif0", 1);
    lapi::Config config;
    const lapi::Status s = lapi::Config::from_env(config);
    CHECK(s.message().find("LAPIS_LINKS='nosuchif0': no such network interface") != std::string::npos);
    ::setenv("LAPIS_LINKS", "lo", 1);
    ::setenv("LAPIS_STRIPE_MIN", "4096", 1);
    REQUIRE(lapi::Config::from_env(config).ok());
    CHECK(config.links == std::vector<std::string>{"lo"});
    CHECK(config.stripe_min == 4096);
    // A task alone listens on its link and stripes to nobody.
    std::unique_ptr<lapi::Context> ctx;
    LAPI_OK(lapi::Context::init(config, ctx));
    const lapi::LinkStats stats = ctx->link_stats();
    REQUIRE(stats.links.size() == 1);
    CHECK(stats.links[0].interface == "lo");
    CHECK(stats.peers == 0);
    LAPI_OK(ctx->term());
    ::unsetenv("LAPIS_LINKS");
    ::unsetenv("LAPIS_STRIPE_MIN");
  }
  // Fault injection needs checksums: undetected damage would be delivered.
  expect_rejected("LAPIS_FAULT_CORRUPT", {"shm:3"});
  ::setenv("LAPIS_CHECKSUM", "crc32c", 1);
  expect_rejected("LAPIS_FAULT_CORRUPT", {"shm", "shm:0", "bogus:3", "shm:x", ":3", "atomic:2", "shm,:2"});
  ::setenv("LAPIS_FAULT_CORRUPT", "put,get:7", 1);
  {
    lapi::Config checked;
    REQUIRE(lapi::Config::from_env(checked).ok());
    CHECK(checked.checksum == lapi::Checksum::crc32c);
    CHECK(checked.fault_corrupt.paths == (lapi::kCorruptPut | lapi::kCorruptGet));
    CHECK(checked.fault_corrupt.every == 7);
  }
  ::unsetenv("LAPIS_FAULT_CORRUPT");
  ::unsetenv("LAPIS_CHECKSUM");
  lapi::Config config;
  ::setenv("LAPIS_TAKEOVER_GRACE_US", "200", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK(config.takeover_grace_us == 200);
  ::unsetenv("LAPIS_TAKEOVER_GRACE_US");
  CHECK(config.progress_nice == -20);
  CHECK_FALSE(config.progress_nice_set);
  ::setenv("LAPIS_PROGRESS_NICE", "7", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK(config.progress_nice == 7);
  CHECK(config.progress_nice_set);
  ::unsetenv("LAPIS_PROGRESS_NICE");
  ::setenv("LAPIS_SHM", "0", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK_FALSE(config.shm);
  ::unsetenv("LAPIS_SHM");
  ::setenv("LAPIS_SPLIT_COPY", "0", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK_FALSE(config.split_copy);
  ::setenv("LAPIS_SPLIT_COPY", "auto", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK(config.split_copy);
  CHECK_FALSE(config.split_copy_always);
  ::setenv("LAPIS_SPLIT_COPY", "1", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK(config.split_copy_always);
  ::unsetenv("LAPIS_SPLIT_COPY");
  config.split_min = 16384;  // what the MPI layer sets: the variable wins over it
  config.split_min_auto = true;
  ::setenv("LAPIS_SPLIT_MIN", "131072", 1);
  REQUIRE(lapi::Config::from_env(config).ok());
  CHECK(config.split_min == 131072);
  CHECK_FALSE(config.split_min_auto);  // and the machine's measure does not override it
  ::unsetenv("LAPIS_SPLIT_MIN");
  CHECK(lapi::Config::from_env(config).ok());
}

TEST_CASE("a Config set in code that makes no sense is refused at init, naming the field") {
  std::unique_ptr<lapi::Context> ctx;
  for (double bad : {-1.0, std::nan("")}) {
    lapi::Config config;
    config.split_cma_ratio_max = bad;
    lapi::Status s = lapi::Context::init(config, ctx);
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(s.message().find("split_cma_ratio_max") != std::string::npos);
    CHECK(ctx == nullptr);
  }
  lapi::Config config;
  config.policy = static_cast<lapi::CompletionPolicy>(9);
  lapi::Status s = lapi::Context::init(config, ctx);
  CHECK(s.code() == lapi::Errc::set_val);
  CHECK(s.message().find("config.policy=9") != std::string::npos);
  config = lapi::Config{};
  config.mode = static_cast<lapi::ProgressMode>(9);
  s = lapi::Context::init(config, ctx);
  CHECK(s.code() == lapi::Errc::set_val);
  CHECK(s.message().find("config.mode=9") != std::string::npos);
}

TEST_CASE("shared_memory and split_copy are readable through qenv and read-only") {
  lapi::Config config;
  config.shm = false;
  std::unique_ptr<lapi::Context> ctx;
  LAPI_OK(lapi::Context::init(config, ctx));
  std::int64_t v = -1;
  LAPI_OK(ctx->qenv(lapi::Query::shared_memory, v));
  CHECK(v == 0);
  LAPI_OK(ctx->qenv(lapi::Query::split_copy, v));
  CHECK(v == 0);  // split copy needs the shared-memory channel
  for (lapi::Query q : {lapi::Query::shared_memory, lapi::Query::split_copy}) {
    const lapi::Status s = ctx->senv(q, 1);
    CHECK(s.code() == lapi::Errc::query_type);
    CHECK(s.message().find("read-only") != std::string::npos);
  }
  CHECK(ctx->shm_stats().peers == 0);  // a singleton has nobody to share with
  CHECK(ctx->shm_stats().split_peers == 0);
  LAPI_OK(ctx->term());
}

namespace {
lapi::Counter g_gate;
int g_order = 0;
int g_waiter_finished_at = 0;
int g_opener_finished_at = 0;
}  // namespace

TEST_CASE("fiber policy: a completion handler that waits suspends only itself") {
  lapi::Config config;
  config.policy = lapi::CompletionPolicy::fiber;
  std::unique_ptr<lapi::Context> ctx;
  LAPI_OK(lapi::Context::init(config, ctx));
  // Handler 1's completion waits for the gate; handler 2's opens it. They
  // arrive in that order, so inline completion would deadlock here.
  LAPI_OK(ctx->register_handler(1, [](lapi::Context&, const lapi::AmHeaderInfo&) {
    return lapi::Landing{nullptr, [](lapi::Context& c, void*, void*) {
                           REQUIRE(c.waitcntr(g_gate, 1).ok());
                           g_waiter_finished_at = ++g_order;
                         }};
  }));
  LAPI_OK(ctx->register_handler(2, [](lapi::Context&, const lapi::AmHeaderInfo&) {
    return lapi::Landing{nullptr, [](lapi::Context&, void*, void*) {
                           g_opener_finished_at = ++g_order;
                           g_gate.add();
                         }};
  }));
  lapi::Counter done;
  LAPI_OK(ctx->amsend(0, 1, nullptr, 0, nullptr, 0, {{}, nullptr, &done}));
  LAPI_OK(ctx->amsend(0, 2, nullptr, 0, nullptr, 0, {{}, nullptr, &done}));
  LAPI_OK(ctx->waitcntr(done, 2));
  CHECK(g_opener_finished_at == 1);
  CHECK(g_waiter_finished_at == 2);
  LAPI_OK(ctx->term());
}
