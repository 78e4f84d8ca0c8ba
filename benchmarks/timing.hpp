#pragma once
// The one timing rule both sides of every row follow.

#include <chrono>

namespace lapis::benchmarks {

// Runs `warmup` untimed and then `iters` timed calls of step(); returns the
// seconds the timed ones took.
template <typename Step>
double timed(int warmup, int iters, Step step) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) step();
  const auto start = Clock::now();
  for (int i = 0; i < iters; ++i) step();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace lapis::benchmarks
