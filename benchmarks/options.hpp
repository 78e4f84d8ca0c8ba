#pragma once
// Command line of the Lapis benchmarks (lapi_latency, lapi_bandwidth).
//
//   --sizes LIST    comma list of sizes (suffix K, M) and power-of-two ranges
//                   LO:HI, e.g. "8,4K,64K,1M" or "1:4M" (default 1:4M)
//   --iters N       timed iterations per repetition (latency: round trips;
//                   bandwidth: windows). Default: scaled by size and mode.
//   --reps N        repetitions of each measurement (median and min/best)
//   --window N      bandwidth only: sends outstanding before each ack (64)
//   --op LIST       amsend,put
//   --mode LIST     polling,interrupt
//   --policy LIST   inline,thread,fiber (Amsend; Put runs once per mode)
//   --checksum LIST none,crc32c: one Lapis context per value, measured
//                   alternately in every repetition (default: LAPIS_CHECKSUM).
//                   Known bug: with two values, bandwidth and Put runs hang.
//   --json          one JSON object per line instead of the table

#include <cstddef>
#include <string>
#include <vector>

#include "handlers/handler.hpp"
#include "lapi/config.hpp"

namespace lapis::benchmarks {

enum class BenchKind { latency, bandwidth };
enum class Op { amsend, put };

inline constexpr std::size_t kMaxMessageSize = std::size_t{64} << 20;

struct Options {
  std::vector<std::size_t> sizes;
  int iters = 0;  // 0 = automatic (iterations_for)
  int reps = 5;
  int window = 64;
  std::vector<Op> ops;
  std::vector<lapi::ProgressMode> modes;
  std::vector<lapi::CompletionPolicy> policies;
  std::vector<lapi::Checksum> checksums;  // empty: one context, as LAPIS_CHECKSUM says
  bool json = false;
  bool help = false;
};

// Parses argv[1..]. On bad input returns false with `error` naming the
// argument and what was wrong; never exits.
bool parse_options(int argc, const char* const* argv, BenchKind kind, Options& out,
                   std::string& error);

std::string usage(BenchKind kind, const char* program);

// Timed iterations for one measurement: --iters if given, else a default
// that keeps one repetition short for large messages and slow (interrupt)
// wake-ups.
int iterations_for(const Options& options, BenchKind kind, std::size_t size,
                   lapi::ProgressMode mode);
// Untimed iterations run before the timed ones in every repetition.
int warmup_for(int iters);

std::string_view op_name(Op op);
std::string_view mode_name(lapi::ProgressMode mode);
std::string_view policy_name(lapi::CompletionPolicy policy);
// "8", "4K", "1M" — exact binary suffixes only.
std::string size_label(std::size_t size);

}  // namespace lapis::benchmarks
