// Fence over Amsend: after fence() every Amsend this task issued has landed
// at its target, so a counter-less flood is fully visible after a gfence.

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {
std::vector<std::atomic<int>> g_hits(64);
std::vector<std::uint64_t> g_payload(64 * 1024);

lapi::Landing on_hit(lapi::Context&, const lapi::AmHeaderInfo& info) {
  g_hits[info.src].fetch_add(1);
  return {info.data_len ? g_payload.data() : nullptr, nullptr, nullptr, nullptr};
}
}  // namespace

TEST_CASE("gfence waits for every amsend to land") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  LAPI_OK(ctx.register_handler(7, on_hit, nullptr));
  LAPI_OK(ctx.barrier());
  constexpr int kMessages = 200;
  std::vector<std::uint64_t> data(64 * 1024 / 8, 42);
  for (int i = 0; i < kMessages; ++i) {
    for (lapi::TaskId t = 0; t < n; ++t) {
      // Mix eager and rendezvous sizes.
      const std::size_t len = (i % 10 == 0) ? data.size() * 8 : 16;
      LAPI_OK(ctx.amsend(t, 7, nullptr, 0, data.data(), len));
    }
  }
  LAPI_OK(ctx.fence());
  LAPI_OK(ctx.gfence());
  for (std::uint32_t t = 0; t < n; ++t) CHECK(g_hits[t].load() == kMessages);
}
