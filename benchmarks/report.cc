#include "benchmarks/report.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace lapis::benchmarks {
namespace {

double ratio_of(double lapis, double ucx) { return ucx > 0 ? lapis / ucx : 0.0; }

const Row* find_row(const std::vector<Row>& rows, Op op, lapi::ProgressMode mode,
                    std::size_t size, lapi::CompletionPolicy policy, lapi::Checksum checksum) {
  const auto hit = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
    return r.op == op && r.mode == mode && r.size == size && r.policy == policy &&
           r.checksum == checksum;
  });
  return hit == rows.end() ? nullptr : &*hit;
}

std::string_view checksum_name(lapi::Checksum c) { return lapi::to_string(c); }

}  // namespace

Stats summarize(std::vector<double> values, bool higher_is_better) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, higher_is_better ? values.back() : values.front()};
}

Reporter::Reporter(BenchKind kind, const Options& options, std::FILE* out)
    : kind_(kind), options_(options), out_(out) {}

void Reporter::begin() {
  if (options_.json) return;
  if (kind_ == BenchKind::latency) {
    fmt::print(out_,
               "# Lapis vs raw UCX, one-way latency in us (round trip / 2), median (min) of {} "
               "interleaved reps\n"
               "# ratio = lapis/ucx (medians). ucx: amsend = ucp_am_send_nbx ping-pong; "
               "put = put+fence+AM notify;\n"
               "# ucx_mempoll = raw put with the target polling its memory (polling mode only)\n"
               "# interrupt mode: ucx sleeps on the worker's event fd whenever idle "
               "(drain, ucp_worker_arm, poll)\n",
               options_.reps);
    fmt::print(out_, "{:<7} {:<9} {:<7} {:>5} {:>19} {:>19} {:>7} {:>19}\n", "op", "mode",
               "policy", "size", "lapis_us (min)", "ucx_us (min)", "ratio", "ucx_mempoll (min)");
  } else {
    fmt::print(out_,
               "# Lapis vs raw UCX, streaming bandwidth in MB/s (10^6 B/s), window of {}, "
               "median (best) of {} interleaved reps\n"
               "# ratio = lapis/ucx (medians). amsend: window of sends then an ack; "
               "put: window of puts then fence/flush\n"
               "# interrupt mode: ucx sleeps on the worker's event fd whenever it has nothing "
               "in flight (drain, ucp_worker_arm, poll)\n",
               options_.window, options_.reps);
    fmt::print(out_, "{:<7} {:<9} {:<7} {:>5} {:>21} {:>21} {:>7}\n", "op", "mode", "policy",
               "size", "lapis_MBps (best)", "ucx_MBps (best)", "ratio");
  }
  std::fflush(out_);
}

void Reporter::row(const Row& row) {
  rows_.push_back(row);
  if (options_.json) {
    json_row(row);
  } else {
    table_row(row);
  }
  std::fflush(out_);
}

void Reporter::table_row(const Row& row) {
  const auto cell = [&](const Stats& s) {
    return kind_ == BenchKind::latency ? fmt::format("{:.3f} ({:.3f})", s.median, s.best)
                                       : fmt::format("{:.0f} ({:.0f})", s.median, s.best);
  };
  const int width = kind_ == BenchKind::latency ? 19 : 21;
  fmt::print(out_, "{:<7} {:<9} {:<7} {:>5} {:>{}} {:>{}} {:>7.2f}", op_name(row.op),
             mode_name(row.mode), policy_name(row.policy), size_label(row.size), cell(row.lapis),
             width, cell(row.ucx), width, ratio_of(row.lapis.median, row.ucx.median));
  if (row.ucx_mempoll) fmt::print(out_, " {:>19}", cell(*row.ucx_mempoll));
  if (!options_.checksums.empty()) fmt::print(out_, "  checksum={}", checksum_name(row.checksum));
  fmt::print(out_, "\n");
}

void Reporter::json_row(const Row& row) {
  const bool latency = kind_ == BenchKind::latency;
  std::string line = fmt::format(
      R"({{"bench":"{}","op":"{}","mode":"{}","policy":"{}","checksum":"{}","size":{},"iters":{},"reps":{})",
      latency ? "latency" : "bandwidth", op_name(row.op), mode_name(row.mode),
      policy_name(row.policy), checksum_name(row.checksum), row.size, row.iters, options_.reps);
  if (latency) {
    line += fmt::format(
        R"(,"lapis_us":{:.4f},"lapis_min_us":{:.4f},"ucx_us":{:.4f},"ucx_min_us":{:.4f},"ratio":{:.4f})",
        row.lapis.median, row.lapis.best, row.ucx.median, row.ucx.best,
        ratio_of(row.lapis.median, row.ucx.median));
    if (row.ucx_mempoll) {
      line += fmt::format(R"(,"ucx_mempoll_us":{:.4f},"ucx_mempoll_min_us":{:.4f})",
                          row.ucx_mempoll->median, row.ucx_mempoll->best);
    }
  } else {
    line += fmt::format(
        // Significant digits, not decimals: a loaded machine can stream a few bytes
        // per millisecond, which "{:.2f}" would print as a bandwidth of 0.
        R"(,"window":{},"lapis_MBps":{:.6g},"lapis_best_MBps":{:.6g},"ucx_MBps":{:.6g},"ucx_best_MBps":{:.6g},"ratio":{:.4f})",
        options_.window, row.lapis.median, row.lapis.best, row.ucx.median, row.ucx.best,
        ratio_of(row.lapis.median, row.ucx.median));
  }
  fmt::print(out_, "{}}}\n", line);
}

void Reporter::finish() {
  if (kind_ == BenchKind::latency) policy_summary();
  checksum_summary();
  std::fflush(out_);
}

// Lapis Amsend latency under thread and fiber relative to inline, per mode and
// size: what running completion handlers off the progress path costs.
void Reporter::policy_summary() {
  using lapi::CompletionPolicy;
  bool header_done = false;
  for (const Row& base : rows_) {
    if (base.op != Op::amsend || base.policy != CompletionPolicy::inline_run) continue;
    const Row* thread =
        find_row(rows_, Op::amsend, base.mode, base.size, CompletionPolicy::thread, base.checksum);
    const Row* fiber =
        find_row(rows_, Op::amsend, base.mode, base.size, CompletionPolicy::fiber, base.checksum);
    if (thread == nullptr && fiber == nullptr) continue;
    if (options_.json) {
      std::string line = fmt::format(
          R"({{"bench":"latency_policy","op":"amsend","mode":"{}","size":{},"inline_us":{:.4f})",
          mode_name(base.mode), base.size, base.lapis.median);
      if (thread) {
        line += fmt::format(R"(,"thread_us":{:.4f},"thread_over_inline":{:.4f})",
                            thread->lapis.median, ratio_of(thread->lapis.median, base.lapis.median));
      }
      if (fiber) {
        line += fmt::format(R"(,"fiber_us":{:.4f},"fiber_over_inline":{:.4f})",
                            fiber->lapis.median, ratio_of(fiber->lapis.median, base.lapis.median));
      }
      fmt::print(out_, "{}}}\n", line);
      continue;
    }
    if (!header_done) {
      fmt::print(out_,
                 "\n# Completion-policy cost: Lapis Amsend latency (us, medians) relative to "
                 "inline (Base vs Enhanced)\n"
                 "{:<9} {:>5} {:>10} {:>10} {:>10} {:>14} {:>13}\n",
                 "mode", "size", "inline", "thread", "fiber", "thread/inline", "fiber/inline");
      header_done = true;
    }
    const auto value = [](const Row* r) {
      return r ? fmt::format("{:.3f}", r->lapis.median) : std::string("-");
    };
    const auto ratio = [&](const Row* r) {
      return r ? fmt::format("{:.2f}", ratio_of(r->lapis.median, base.lapis.median))
               : std::string("-");
    };
    fmt::print(out_, "{:<9} {:>5} {:>10.3f} {:>10} {:>10} {:>14} {:>13}\n", mode_name(base.mode),
               size_label(base.size), base.lapis.median, value(thread), value(fiber),
               ratio(thread), ratio(fiber));
  }
}

// What LAPIS_CHECKSUM=crc32c costs: each crc32c row against the none row
// measured alternately with it (--checksum none,crc32c).
void Reporter::checksum_summary() {
  bool header_done = false;
  for (const Row& checked : rows_) {
    if (checked.checksum != lapi::Checksum::crc32c) continue;
    const Row* plain = find_row(rows_, checked.op, checked.mode, checked.size, checked.policy,
                                lapi::Checksum::none);
    if (plain == nullptr) continue;
    const double ratio = ratio_of(checked.lapis.median, plain->lapis.median);
    if (options_.json) {
      fmt::print(out_,
                 R"({{"bench":"checksum_cost","kind":"{}","op":"{}","mode":"{}","policy":"{}","size":{},"none":{:.4f},"crc32c":{:.4f},"crc32c_over_none":{:.4f}}})"
                 "\n",
                 kind_ == BenchKind::latency ? "latency" : "bandwidth", op_name(checked.op),
                 mode_name(checked.mode), policy_name(checked.policy), checked.size,
                 plain->lapis.median, checked.lapis.median, ratio);
      continue;
    }
    if (!header_done) {
      fmt::print(out_, "\n# Checksum cost: Lapis with crc32c over without (medians, {})\n",
                 kind_ == BenchKind::latency ? "latency us" : "bandwidth MB/s");
      fmt::print(out_, "{:<7} {:<9} {:<7} {:>5} {:>12} {:>12} {:>12}\n", "op", "mode", "policy",
                 "size", "none", "crc32c", "crc32c/none");
      header_done = true;
    }
    fmt::print(out_, "{:<7} {:<9} {:<7} {:>5} {:>12.3f} {:>12.3f} {:>12.3f}\n",
               op_name(checked.op), mode_name(checked.mode), policy_name(checked.policy),
               size_label(checked.size), plain->lapis.median, checked.lapis.median, ratio);
  }
}

}  // namespace lapis::benchmarks
