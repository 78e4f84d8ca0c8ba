#include "benchmarks/harness.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "benchmarks/bench_error.hpp"
#include "benchmarks/lapis_side.hpp"
#include "benchmarks/raw_ucx.hpp"
#include "benchmarks/report.hpp"
#include "runtime/bootstrap.hpp"

namespace lapis::benchmarks {
namespace {

// Before Init the rank is known only from the launcher's environment; used to
// print argument errors once instead of once per rank.
bool launcher_rank_is_zero() {
  const char* rank = std::getenv("LAPIS_RANK");
  if (rank == nullptr) rank = std::getenv("PMIX_RANK");
  return rank == nullptr || std::string_view(rank) == "0";
}

struct Measurement {
  BenchKind kind;
  Op op;
  lapi::ProgressMode mode;
  std::size_t size;
  int warmup;
  int iters;
  int window;
  bool interrupt() const { return mode == lapi::ProgressMode::interrupt; }
};

class Runner {
 public:
  Runner(BenchKind kind, const Options& options, LapisSide& lapis, RawUcx& raw)
      : kind_(kind), options_(options), lapis_(lapis), raw_(raw),
        reporter_(kind, options, stdout) {}

  void run() {
    const bool printer = lapis_.task_id() == 0;
    if (printer) reporter_.begin();
    for (const auto mode : options_.modes) {
      lapis_.set_mode(mode);
      lapis_.barrier();
      for (const Op op : options_.ops) {
        // The completion policy only matters where a completion handler runs
        // (Amsend); Put runs once per mode under the first selected policy.
        const std::size_t policies = op == Op::amsend ? options_.policies.size() : 1;
        for (std::size_t p = 0; p < policies; ++p) {
          lapis_.set_policy(options_.policies[p]);
          lapis_.barrier();
          for (const std::size_t size : options_.sizes) {
            Row row = measure_row(op, mode, size);
            row.policy = options_.policies[p];
            if (printer) reporter_.row(row);
          }
        }
      }
    }
    if (printer) reporter_.finish();
  }

 private:
  Row measure_row(Op op, lapi::ProgressMode mode, std::size_t size) {
    const int iters = iterations_for(options_, kind_, size, mode);
    const Measurement m{kind_, op, mode, size, warmup_for(iters), iters, options_.window};
    const bool with_mempoll = kind_ == BenchKind::latency && op == Op::put && !m.interrupt();
    std::vector<double> lapis_values, ucx_values, mempoll_values;
    for (int rep = 0; rep < options_.reps; ++rep) {
      // Alternate which side goes first so drift favours neither.
      const bool lapis_first = rep % 2 == 0;
      for (int side = 0; side < 2; ++side) {
        lapis_.barrier();
        if ((side == 0) == lapis_first) {
          lapis_values.push_back(convert(m, run_lapis(m)));
        } else {
          ucx_values.push_back(convert(m, run_raw(m)));
        }
      }
      if (with_mempoll) {
        raw_.prepare_memory_poll(size);
        lapis_.barrier();
        mempoll_values.push_back(convert(m, raw_.put_mempoll_pingpong(size, m.warmup, iters)));
      }
    }
    const bool higher_is_better = kind_ == BenchKind::bandwidth;
    Row row;
    row.op = op;
    row.mode = mode;
    row.size = size;
    row.iters = iters;
    row.lapis = summarize(lapis_values, higher_is_better);
    row.ucx = summarize(ucx_values, higher_is_better);
    if (with_mempoll) row.ucx_mempoll = summarize(mempoll_values, higher_is_better);
    return row;
  }

  double run_lapis(const Measurement& m) {
    if (m.kind == BenchKind::latency) {
      return m.op == Op::amsend ? lapis_.am_pingpong(m.size, m.warmup, m.iters)
                                : lapis_.put_pingpong(m.size, m.warmup, m.iters);
    }
    return m.op == Op::amsend ? lapis_.am_stream(m.size, m.warmup, m.iters, m.window)
                              : lapis_.put_stream(m.size, m.warmup, m.iters, m.window);
  }

  double run_raw(const Measurement& m) {
    const bool blocking = m.interrupt();
    if (m.kind == BenchKind::latency) {
      return m.op == Op::amsend ? raw_.am_pingpong(m.size, m.warmup, m.iters, blocking)
                                : raw_.put_notify_pingpong(m.size, m.warmup, m.iters, blocking);
    }
    return m.op == Op::amsend ? raw_.am_stream(m.size, m.warmup, m.iters, m.window, blocking)
                              : raw_.put_stream(m.size, m.warmup, m.iters, m.window, blocking);
  }

  // Seconds → one-way µs (latency) or MB/s (bandwidth). Only task 0's
  // seconds are meaningful; task 1's values are never printed.
  static double convert(const Measurement& m, double seconds) {
    if (seconds <= 0) return 0;
    if (m.kind == BenchKind::latency) return seconds / m.iters / 2 * 1e6;
    const double bytes = static_cast<double>(m.size) * m.window * m.iters;
    return bytes / seconds / 1e6;
  }

  BenchKind kind_;
  const Options& options_;
  LapisSide& lapis_;
  RawUcx& raw_;
  Reporter reporter_;
};

Allgather bootstrap_allgather() {
  return [](std::span<const std::byte> mine) {
    return lapis::runtime::process_bootstrap().allgather(mine);
  };
}

}  // namespace

int run_benchmark(BenchKind kind, int argc, char** argv) {
  const char* program = kind == BenchKind::latency ? "lapi_latency" : "lapi_bandwidth";
  Options options;
  std::string error;
  if (!parse_options(argc, argv, kind, options, error)) {
    if (launcher_rank_is_zero()) {
      fmt::print(stderr, "{}: {}\n{}", program, error, usage(kind, program));
    }
    return 2;
  }
  if (options.help) {
    if (launcher_rank_is_zero()) fmt::print("{}", usage(kind, program));
    return 0;
  }
  int rank = -1;
  try {
    const std::size_t buffer_size =
        *std::max_element(options.sizes.begin(), options.sizes.end());
    LapisSide lapis(buffer_size);
    rank = static_cast<int>(lapis.task_id());
    RawUcxConfig raw_config;
    raw_config.buffer_size = buffer_size;
    raw_config.eager_limit = lapis.eager_limit();
    auto raw = RawUcx::create(rank, raw_config, bootstrap_allgather());
    Runner(kind, options, lapis, *raw).run();
    lapis.barrier();
    raw.reset();  // collective teardown of the baseline
    lapis.term();
  } catch (const std::exception& e) {
    const std::string who = rank >= 0 ? fmt::format("{} (rank {})", program, rank) : program;
    fmt::print(stderr, "{}: error: {}\n", who, e.what());
    return 1;
  }
  return 0;
}

}  // namespace lapis::benchmarks
