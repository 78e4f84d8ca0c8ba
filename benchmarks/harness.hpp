#pragma once
// The shared main of lapi_latency and lapi_bandwidth: parse options, bring up
// Lapis and the raw-UCX baseline side by side, run every selected row with
// Lapis and UCX repetitions interleaved (so noise hits both), report.

#include "benchmarks/options.hpp"

namespace lapis::benchmarks {

// Returns the process exit status: 0 done, 1 runtime error, 2 bad arguments.
int run_benchmark(BenchKind kind, int argc, char** argv);

}  // namespace lapis::benchmarks
