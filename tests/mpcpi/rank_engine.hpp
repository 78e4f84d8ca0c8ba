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

// Spins until the watched byte of a receive buffer holds `value`, reading it
// with plain loads while lapi's progress thread (or UCX, or a sender writing
// directly) writes the buffer:
// the unsynchronised read the interrupt-mode case exists to perform. It is
// kept out of ThreadSanitizer's view here rather than by a suppression,
// because the racing writes are in lapi/mpcpi's landing code, and a
// suppression naming those frames would also hide real races there. Only
// this one load is exempt; the rest of the buffer is read after wait(),
// which TSan checks as usual. noinline keeps the exemption confined to this
// function whatever the inliner decides.
__attribute__((no_sanitize("thread"), noinline)) inline void spin_until_byte(
    const volatile std::uint8_t* p, std::uint8_t value) {
  while (*p != value) {
  }
}

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

// Makes `v` message `seq` of `bytes` bytes in the memory it already has: a
// test that sends growing sizes in rounds spent most of its time faulting
// in a fresh 64 MiB vector per round (first touch is slow on virtual
// machines).
inline void fill_message(std::vector<std::uint8_t>& v, int src, std::uint64_t seq,
                         std::size_t bytes) {
  v.resize(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = pattern(src, seq, i);
}

inline std::vector<std::uint8_t> make_message(int src, std::uint64_t seq, std::size_t bytes) {
  std::vector<std::uint8_t> v;
  fill_message(v, src, seq, bytes);
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
