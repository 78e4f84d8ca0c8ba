#pragma once
// Results of the benchmarks: a human table (streamed row by row) or one JSON
// object per line, plus the completion-policy cost summary (thread/inline and
// fiber/inline Lapis Amsend latency: the paper's Base versus Enhanced).

#include <cstddef>
#include <cstdio>
#include <optional>
#include <vector>

#include "benchmarks/options.hpp"

namespace lapis::benchmarks {

// Median and best (min latency, max bandwidth) of the repetitions.
struct Stats {
  double median = 0;
  double best = 0;
};
Stats summarize(std::vector<double> values, bool higher_is_better);

struct Row {
  Op op = Op::amsend;
  lapi::ProgressMode mode = lapi::ProgressMode::polling;
  lapi::CompletionPolicy policy = lapi::CompletionPolicy::inline_run;
  std::size_t size = 0;
  int iters = 0;
  lapi::Checksum checksum = lapi::Checksum::none;  // of the Lapis context measured
  Stats lapis;  // latency: one-way µs; bandwidth: MB/s (10^6 bytes)
  Stats ucx;
  // Latency of raw put where the target polls its memory (Put, polling).
  std::optional<Stats> ucx_mempoll;
};

class Reporter {
 public:
  Reporter(BenchKind kind, const Options& options, std::FILE* out);
  void begin();
  void row(const Row& row);
  // Prints the completion-policy summary (latency, when Amsend ran under
  // inline and at least one other policy).
  void finish();

 private:
  void table_row(const Row& row);
  void json_row(const Row& row);
  void policy_summary();
  void checksum_summary();

  BenchKind kind_;
  const Options& options_;
  std::FILE* out_;
  std::vector<Row> rows_;
};

}  // namespace lapis::benchmarks
