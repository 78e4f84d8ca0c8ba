// Sends to oneself (one task, lapi's singleton): cancelling a synchronous
// self-send withdraws that send's own message, whatever the pooled
// messages and requests were used for before (tests/fuzz/
// mpcpi_protocol_fuzzer found cancel taking another message, whose stale
// self_sender named a recycled request, and the real one later read from
// the freed send buffer).

#include <doctest/doctest.h>

#include <cstring>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"

TEST_CASE("cancelling a synchronous self-send withdraws its own message") {
  lapi::Config config;
  config.mode = lapi::ProgressMode::polling;
  config.policy = lapi::CompletionPolicy::inline_run;
  std::unique_ptr<lapi::Context> ctx;
  REQUIRE(lapi::Context::init(config, ctx).ok());
  mpcpi::Options options;
  options.set_completion_policy = false;
  std::unique_ptr<mpcpi::Engine> engine;
  REQUIRE(mpcpi::Engine::create(*ctx, options, engine) == mpcpi::Errc::success);
  constexpr int kTag = 3;
  mpcpi::Status status;

  // 1. A synchronous self-send, taken by a matched probe: its request and
  //    its message go back to their pools.
  std::vector<char> first(36, 'a');
  mpcpi::Request* send = nullptr;
  REQUIRE(engine->isend(first.data(), first.size(), 0, kTag, 0, mpcpi::SendMode::synchronous, send) ==
          mpcpi::Errc::success);
  mpcpi::Message* msg = nullptr;
  REQUIRE(engine->improbe(0, kTag, 0, msg, &status) == mpcpi::Errc::success);
  REQUIRE(msg != nullptr);
  std::vector<char> got(36);
  mpcpi::Request* recv = nullptr;
  REQUIRE(engine->imrecv(msg, got.data(), got.size(), recv) == mpcpi::Errc::success);
  REQUIRE(engine->wait(recv, &status) == mpcpi::Errc::success);
  REQUIRE(engine->wait(send, &status) == mpcpi::Errc::success);

  // 2. A small standard self-send: completes at once, its copy waits
  //    unexpected (in the pooled message of step 1).
  std::vector<char> eager(16, 'e');
  REQUIRE(engine->isend(eager.data(), eager.size(), 0, kTag, 0, mpcpi::SendMode::standard, send) ==
          mpcpi::Errc::success);
  REQUIRE(engine->wait(send, &status) == mpcpi::Errc::success);

  // 3. Another synchronous self-send (the request of step 1 again), cancelled.
  auto sync_buf = std::make_unique<std::vector<char>>(21, 's');
  mpcpi::Request* sync = nullptr;
  REQUIRE(engine->isend(sync_buf->data(), sync_buf->size(), 0, kTag, 0, mpcpi::SendMode::synchronous,
                        sync) == mpcpi::Errc::success);
  REQUIRE(engine->cancel(sync) == mpcpi::Errc::success);
  REQUIRE(engine->wait(sync, &status) == mpcpi::Errc::success);
  CHECK(status.cancelled);
  sync_buf.reset();  // the send is over: its buffer may go

  // What is left to receive is the eager message of step 2, and only it.
  std::vector<char> left(64, 0);
  REQUIRE(engine->recv(left.data(), left.size(), 0, kTag, 0, &status) == mpcpi::Errc::success);
  CHECK(status.bytes == eager.size());
  CHECK(std::memcmp(left.data(), eager.data(), eager.size()) == 0);
  bool found = true;
  REQUIRE(engine->iprobe(mpcpi::kAnySource, mpcpi::kAnyTag, 0, found, &status) == mpcpi::Errc::success);
  CHECK_FALSE(found);
  CHECK(engine->finalize() == mpcpi::Errc::success);
  engine.reset();
  CHECK(ctx->term().ok());
}

// join_peers (jobs that connect) refuses tasks lapi has not joined, or of this job, and a peer running
// another variant; the engine's task bound stays where it was.
TEST_CASE("join_peers refuses a wrong first task and another variant") {
  std::unique_ptr<lapi::Context> ctx;
  REQUIRE(lapi::Context::init(lapi::Config{}, ctx).ok());
  mpcpi::Options options;
  options.set_completion_policy = false;
  std::unique_ptr<mpcpi::Engine> engine;
  REQUIRE(mpcpi::Engine::create(*ctx, options, engine) == mpcpi::Errc::success);
  const mpcpi::Engine::JoinSetup mine = engine->join_setup();
  CHECK(engine->join_peers(5, std::vector{mine}) == mpcpi::Errc::invalid_arg);
  CHECK(std::string(mpcpi::last_error_detail()).find("first=5") != std::string::npos);
  CHECK(engine->join_peers(0, std::vector{mine}) == mpcpi::Errc::invalid_arg);
  CHECK(std::string(mpcpi::last_error_detail()).find("first=0") != std::string::npos);
  mpcpi::Engine::JoinSetup other = mine;
  other.setup = (other.setup & ((std::uint64_t{1} << 56) - 1)) |
                (std::uint64_t{static_cast<std::uint8_t>(mpcpi::Variant::base)} << 56);
  CHECK(engine->join_peers(1, std::vector{other}) == mpcpi::Errc::invalid_arg);
  CHECK(std::string(mpcpi::last_error_detail()).find("variant") != std::string::npos);
  // Nothing joined: a send to task 1 is still out of range.
  mpcpi::Request* send = nullptr;
  char byte = 0;
  CHECK(engine->isend(&byte, 1, 1, 0, 0, mpcpi::SendMode::standard, send) == mpcpi::Errc::invalid_rank);
  CHECK(engine->finalize() == mpcpi::Errc::success);
  engine.reset();
  CHECK(ctx->term().ok());
}
