#pragma once
// Shared set-up for rank programs run under lapirun: one context per
// process, configured from LAPIS_* variables, torn down at exit.

#include <doctest/doctest.h>

#include <sched.h>

#include <chrono>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "tests/core/lapi_ok.hpp"

namespace lapis::testing {

inline lapi::Context& rank_context() {
  static std::unique_ptr<lapi::Context> ctx = [] {
    lapi::Config config;
    lapi::Status s = lapi::Config::from_env(config);
    REQUIRE_MESSAGE(s.ok(), s.message());
    std::unique_ptr<lapi::Context> c;
    s = lapi::Context::init(config, c);
    REQUIRE_MESSAGE(s.ok(), s.message());
    return c;
  }();
  return *ctx;
}

// Every task's value of `mine` (Address_init).
inline std::vector<std::uint64_t> exchange(lapi::Context& ctx, std::uint64_t mine) {
  std::vector<std::uint64_t> all(ctx.num_tasks());
  lapi::Status s = ctx.address_init(mine, all);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return all;
}

// Drives progress (probe, yield) until done() holds; fails the test after
// `seconds`.
template <typename Done>
void poll_until(lapi::Context& ctx, Done done, int seconds = 60);


template <typename Done>
void poll_until(lapi::Context& ctx, Done done, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    LAPI_OK(ctx.probe());
    sched_yield();
  }
}

}  // namespace lapis::testing
