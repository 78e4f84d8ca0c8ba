#pragma once
// Shared set-up for MPCPI rank programs run under lapirun: one lapi context
// and one engine per process, both configured from LAPIS_* variables
// (LAPIS_MPI_VARIANT picks the variant), finalized and termed at exit.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"

namespace lapis::testing {

struct RankWorld {
  std::unique_ptr<lapi::Context> ctx;
  std::unique_ptr<mpcpi::Engine> engine;

  RankWorld() {
    lapi::Config config;
    lapi::Status s = lapi::Config::from_env(config);
    REQUIRE_MESSAGE(s.ok(), s.message());
    s = lapi::Context::init(config, ctx);
    REQUIRE_MESSAGE(s.ok(), s.message());
    mpcpi::Options options;
    mpcpi::Errc e = mpcpi::Options::from_env(options);
    REQUIRE_MESSAGE(e == mpcpi::Errc::success, mpcpi::last_error_detail());
    e = mpcpi::Engine::create(*ctx, options, engine);
    REQUIRE_MESSAGE(e == mpcpi::Errc::success, mpcpi::last_error_detail());
  }
  // Engine first (finalize delivers what is held), then the context; the
  // engine object outlives term so late protocol messages still find it.
  ~RankWorld() {
    (void)engine->finalize();
    (void)ctx->term();
    engine.reset();
    ctx.reset();
  }
};

inline RankWorld& world() {
  static RankWorld w;
  return w;
}
inline mpcpi::Engine& engine() { return *world().engine; }
inline lapi::Context& context() { return *world().ctx; }

inline void require_ok(mpcpi::Errc e, const char* what) {
  REQUIRE_MESSAGE(e == mpcpi::Errc::success,
                  what << ": " << mpcpi::errc_name(e) << " " << mpcpi::last_error_detail());
}

inline void barrier() {
  lapi::Status s = context().barrier();
  REQUIRE_MESSAGE(s.ok(), s.message());
}

// Deterministic content: byte i of message `seq` from task `src`.
inline std::uint8_t pattern(int src, std::uint64_t seq, std::size_t i) {
  return static_cast<std::uint8_t>(src * 131 + seq * 17 + i * 7 + 1);
}

inline std::vector<std::uint8_t> make_message(int src, std::uint64_t seq, std::size_t bytes) {
  std::vector<std::uint8_t> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = pattern(src, seq, i);
  return v;
}

// Index of the first byte that differs from the pattern, or bytes if none.
inline std::size_t first_mismatch(const std::uint8_t* p, int src, std::uint64_t seq,
                                  std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (p[i] != pattern(src, seq, i)) return i;
  return bytes;
}

}  // namespace lapis::testing
