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
  // One LapisSide per checksum setting (`checksums[i]` labels sides[i]).
  Runner(BenchKind kind, const Options& options, std::vector<LapisSide*> sides,
         std::vector<lapi::Checksum> checksums, RawUcx& raw)
      : kind_(kind), options_(options), sides_(std::move(sides)),
        checksums_(std::move(checksums)), raw_(raw), reporter_(kind, options, stdout) {}

  void run() {
    const bool printer = sides_.front()->task_id() == 0;
    if (printer) reporter_.begin();
    warm_up();
    for (const auto mode : options_.modes) {
      for (LapisSide* side : sides_) side->set_mode(mode);
      barrier();
      for (const Op op : options_.ops) {
        // The completion policy only matters where a completion handler runs
        // (Amsend); Put runs once per mode under the first selected policy.
        const std::size_t policies = op == Op::amsend ? options_.policies.size() : 1;
        for (std::size_t p = 0; p < policies; ++p) {
          for (LapisSide* side : sides_) side->set_policy(options_.policies[p]);
          barrier();
          for (const std::size_t size : options_.sizes) {
            for (Row& row : measure_rows(op, mode, size)) {
              row.policy = options_.policies[p];
              if (printer) reporter_.row(row);
            }
          }
        }
      }
    }
    if (printer) reporter_.finish();
  }

 private:
  void barrier() {
    for (LapisSide* side : sides_) side->barrier();
  }

  // On the 2-vCPU VMs this was measured on, the first ~250 ms after start
  // ran at a fraction of the machine's speed for both transports alike
  // (bound ranks; lapi_latency 64 KiB alone, 256 round trips: Lapis 460-600
  // us where it runs 7 afterwards, raw UCX 8 B 263 us against 1.1), and
  // the first size measured took all of it. So both sides first ping-pong
  // untimed: 20,000 8-byte round trips each, ~60 ms once the machine is up
  // to speed, and as long as the slow phase lasts before that.
  void warm_up() {
    constexpr int kRoundTrips = 20000;
    for (LapisSide* side : sides_) side->set_mode(lapi::ProgressMode::polling);
    barrier();
    for (LapisSide* side : sides_) {
      (void)side->am_pingpong(8, 0, kRoundTrips);
      side->barrier();
    }
    barrier();
    (void)raw_.am_pingpong(8, 0, kRoundTrips, false);
  }

  // One row per Lapis side, each beside the same raw-UCX figures.
  std::vector<Row> measure_rows(Op op, lapi::ProgressMode mode, std::size_t size) {
    const int iters = iterations_for(options_, kind_, size, mode);
    const Measurement m{kind_, op, mode, size, warmup_for(iters), iters, options_.window};
    const bool with_mempoll = kind_ == BenchKind::latency && op == Op::put && !m.interrupt();
    const std::size_t slots = sides_.size() + 1;  // the Lapis sides, then raw UCX
    std::vector<std::vector<double>> lapis_values(sides_.size());
    std::vector<double> ucx_values, mempoll_values;
    for (int rep = 0; rep < options_.reps; ++rep) {
      // Rotate which one goes first so drift favours none of them.
      for (std::size_t k = 0; k < slots; ++k) {
        const std::size_t slot = (k + static_cast<std::size_t>(rep)) % slots;
        barrier();
        if (slot < sides_.size()) {
          lapis_values[slot].push_back(convert(m, run_lapis(*sides_[slot], m)));
          // Polling mode progresses a context only inside its own calls. A target done with
          // its waits may still owe the origin messages (split copy's split_done, queued in
          // UCX) that finish the origin's counters: meet on this context before either task
          // polls only another one, or the origin waits forever (--checksum none,crc32c).
          sides_[slot]->barrier();
        } else {
          ucx_values.push_back(convert(m, run_raw(m)));
        }
      }
      if (with_mempoll) {
        raw_.prepare_memory_poll(size);
        barrier();
        mempoll_values.push_back(convert(m, raw_.put_mempoll_pingpong(size, m.warmup, iters)));
      }
    }
    const bool higher_is_better = kind_ == BenchKind::bandwidth;
    std::vector<Row> rows(sides_.size());
    for (std::size_t i = 0; i < sides_.size(); ++i) {
      Row& row = rows[i];
      row.op = op;
      row.mode = mode;
      row.size = size;
      row.iters = iters;
      row.checksum = checksums_[i];
      row.lapis = summarize(lapis_values[i], higher_is_better);
      row.ucx = summarize(ucx_values, higher_is_better);
      if (with_mempoll) row.ucx_mempoll = summarize(mempoll_values, higher_is_better);
    }
    return rows;
  }

  static double run_lapis(LapisSide& lapis, const Measurement& m) {
    if (m.kind == BenchKind::latency) {
      return m.op == Op::amsend ? lapis.am_pingpong(m.size, m.warmup, m.iters)
                                : lapis.put_pingpong(m.size, m.warmup, m.iters);
    }
    return m.op == Op::amsend ? lapis.am_stream(m.size, m.warmup, m.iters, m.window)
                              : lapis.put_stream(m.size, m.warmup, m.iters, m.window);
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
  std::vector<LapisSide*> sides_;
  std::vector<lapi::Checksum> checksums_;
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
    // One context per --checksum value (all alive at once, so that each
    // repetition alternates them), or one as LAPIS_CHECKSUM says.
    std::vector<std::unique_ptr<LapisSide>> owned;
    std::vector<lapi::Checksum> checksums;
    if (options.checksums.empty()) {
      owned.push_back(std::make_unique<LapisSide>(buffer_size, std::nullopt));
      std::int64_t configured = 0;
      owned.back()->qenv(lapi::Query::checksum, configured);
      checksums.push_back(static_cast<lapi::Checksum>(configured));
    } else {
      for (lapi::Checksum c : options.checksums) {
        owned.push_back(std::make_unique<LapisSide>(buffer_size, c));
        checksums.push_back(c);
      }
    }
    std::vector<LapisSide*> sides;
    for (auto& side : owned) sides.push_back(side.get());
    LapisSide& lapis = *sides.front();
    rank = static_cast<int>(lapis.task_id());
    RawUcxConfig raw_config;
    raw_config.buffer_size = buffer_size;
    raw_config.eager_limit = lapis.eager_limit();
    auto raw = RawUcx::create(rank, raw_config, bootstrap_allgather());
    Runner(kind, options, sides, checksums, *raw).run();
    lapis.barrier();
    raw.reset();  // collective teardown of the baseline
    for (auto& side : owned) side->term();
  } catch (const std::exception& e) {
    const std::string who = rank >= 0 ? fmt::format("{} (rank {})", program, rank) : program;
    fmt::print(stderr, "{}: error: {}\n", who, e.what());
    return 1;
  }
  return 0;
}

}  // namespace lapis::benchmarks
