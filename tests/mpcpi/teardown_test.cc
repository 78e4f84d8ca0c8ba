// An engine torn down while lapi still holds completions it queued: lapi
// runs them later, and they must find the engine gone rather than touch it
// (tests/fuzz/mpcpi_protocol_fuzzer found the use after free). One task
// (lapi's singleton) plays both sides.

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"

namespace {

// mpcpi's wire (mpcpi/internal/wire.hpp): a pull is message type 8, its
// header {u32 context, u32 count}. Its header handler always hands lapi a
// completion (release what flow control holds).
constexpr lapi::HandlerId kPullOffset = 8;
struct PullBytes {
  std::uint32_t context;
  std::uint32_t count;
};

}  // namespace

TEST_CASE("a completion queued for an engine that is gone is dropped") {
  lapi::Config config;
  config.mode = lapi::ProgressMode::polling;
  config.policy = lapi::CompletionPolicy::inline_run;
  std::unique_ptr<lapi::Context> ctx;
  REQUIRE(lapi::Context::init(config, ctx).ok());
  mpcpi::Options options;
  options.set_completion_policy = false;
  for (int round = 0; round < 3; ++round) {
    std::unique_ptr<mpcpi::Engine> engine;
    REQUIRE(mpcpi::Engine::create(*ctx, options, engine) == mpcpi::Errc::success);
    const PullBytes pull{0, 1};
    // Queued in lapi as a deferred completion naming this engine.
    REQUIRE(ctx->amsend(0, options.first_handler_id + kPullOffset, &pull, sizeof pull, nullptr, 0)
                .ok());
    engine.reset();
    // lapi runs it now, with the engine gone (AddressSanitizer reported a
    // use after free here; without it the freed engine was read).
    for (int i = 0; i < 4; ++i) CHECK(ctx->probe().ok());
  }
  // A new engine on the same context works as before.
  std::unique_ptr<mpcpi::Engine> engine;
  REQUIRE(mpcpi::Engine::create(*ctx, options, engine) == mpcpi::Errc::success);
  int out = 7, in = 0;
  CHECK(engine->send(&out, sizeof out, 0, 1, 0, mpcpi::SendMode::standard) == mpcpi::Errc::success);
  mpcpi::Status status;
  CHECK(engine->recv(&in, sizeof in, 0, 1, 0, &status) == mpcpi::Errc::success);
  CHECK(in == 7);
  CHECK(engine->finalize() == mpcpi::Errc::success);
  engine.reset();
  CHECK(ctx->term().ok());
}
