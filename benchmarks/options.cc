#include "benchmarks/options.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

namespace lapis::benchmarks {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto pos = text.find(sep);
    parts.push_back(text.substr(0, pos));
    if (pos == std::string_view::npos) return parts;
    text.remove_prefix(pos + 1);
  }
}

bool parse_int(std::string_view text, long long lo, long long hi, long long& out) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < lo || value > hi) {
    return false;
  }
  out = value;
  return true;
}

// "64", "4K", "1M" → bytes in 1 .. kMaxMessageSize.
bool parse_size(std::string_view text, std::size_t& out) {
  std::size_t scale = 1;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'k')) scale = 1024;
  if (!text.empty() && (text.back() == 'M' || text.back() == 'm')) scale = 1024 * 1024;
  if (scale != 1) text.remove_suffix(1);
  long long value = 0;
  const auto max = static_cast<long long>(kMaxMessageSize / scale);
  if (!parse_int(text, 1, max, value)) return false;
  out = static_cast<std::size_t>(value) * scale;
  return true;
}

bool parse_sizes(std::string_view text, std::vector<std::size_t>& out, std::string& error) {
  out.clear();
  for (const auto item : split(text, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) {
      std::size_t size = 0;
      if (!parse_size(item, size)) {
        error = fmt::format("--sizes: '{}' is not a size in 1..64M (suffix K or M allowed)", item);
        return false;
      }
      out.push_back(size);
      continue;
    }
    std::size_t lo = 0;
    std::size_t hi = 0;
    if (!parse_size(item.substr(0, colon), lo) || !parse_size(item.substr(colon + 1), hi) ||
        lo > hi) {
      error = fmt::format("--sizes: '{}' is not a range LO:HI with 1 <= LO <= HI <= 64M", item);
      return false;
    }
    for (std::size_t size = lo; size <= hi; size *= 2) out.push_back(size);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return true;
}

// Parses a comma list of names into values; `table` maps each name.
template <typename T, std::size_t N>
bool parse_list(std::string_view flag, std::string_view text,
                const std::pair<std::string_view, T> (&table)[N], std::vector<T>& out,
                std::string& error) {
  out.clear();
  for (const auto item : split(text, ',')) {
    const auto* hit = std::find_if(std::begin(table), std::end(table),
                                   [&](const auto& entry) { return entry.first == item; });
    if (hit == std::end(table)) {
      std::string names;
      for (const auto& entry : table) names += fmt::format("{}{}", names.empty() ? "" : ",", entry.first);
      error = fmt::format("{}: unknown value '{}' (expected a comma list of {})", flag, item, names);
      return false;
    }
    if (std::find(out.begin(), out.end(), hit->second) == out.end()) out.push_back(hit->second);
  }
  return true;
}

constexpr std::pair<std::string_view, Op> kOps[] = {{"amsend", Op::amsend}, {"put", Op::put}};
constexpr std::pair<std::string_view, lapi::ProgressMode> kModes[] = {
    {"polling", lapi::ProgressMode::polling}, {"interrupt", lapi::ProgressMode::interrupt}};
constexpr std::pair<std::string_view, lapi::CompletionPolicy> kPolicies[] = {
    {"inline", lapi::CompletionPolicy::inline_run},
    {"thread", lapi::CompletionPolicy::thread},
    {"fiber", lapi::CompletionPolicy::fiber}};
constexpr std::pair<std::string_view, lapi::Checksum> kChecksums[] = {
    {"none", lapi::Checksum::none}, {"crc32c", lapi::Checksum::crc32c}};

}  // namespace

bool parse_options(int argc, const char* const* argv, BenchKind kind, Options& out,
                   std::string& error) {
  out = Options{};
  parse_sizes("1:4M", out.sizes, error);
  out.ops = {Op::amsend, Op::put};
  out.modes = {lapi::ProgressMode::polling, lapi::ProgressMode::interrupt};
  out.policies = {lapi::CompletionPolicy::inline_run, lapi::CompletionPolicy::thread,
                  lapi::CompletionPolicy::fiber};

  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--json") {
      out.json = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") {
      out.help = true;
      continue;
    }
    const bool takes_value = flag == "--sizes" || flag == "--iters" || flag == "--reps" ||
                             flag == "--window" || flag == "--op" || flag == "--mode" ||
                             flag == "--policy" || flag == "--checksum";
    if (!takes_value) {
      error = fmt::format("unknown argument '{}' (see --help)", flag);
      return false;
    }
    if (i + 1 >= argc) {
      error = fmt::format("{}: missing value", flag);
      return false;
    }
    const std::string_view value = argv[++i];
    long long number = 0;
    if (flag == "--sizes") {
      if (!parse_sizes(value, out.sizes, error)) return false;
    } else if (flag == "--iters" || flag == "--reps") {
      if (!parse_int(value, 1, 100'000'000, number)) {
        error = fmt::format("{}: '{}' is not an integer in 1..100000000", flag, value);
        return false;
      }
      (flag == "--iters" ? out.iters : out.reps) = static_cast<int>(number);
    } else if (flag == "--window") {
      if (kind != BenchKind::bandwidth) {
        error = "--window: only the bandwidth benchmark takes a window";
        return false;
      }
      if (!parse_int(value, 1, 4096, number)) {
        error = fmt::format("--window: '{}' is not an integer in 1..4096", value);
        return false;
      }
      out.window = static_cast<int>(number);
    } else if (flag == "--op") {
      if (!parse_list(flag, value, kOps, out.ops, error)) return false;
    } else if (flag == "--mode") {
      if (!parse_list(flag, value, kModes, out.modes, error)) return false;
    } else if (flag == "--checksum") {
      if (!parse_list(flag, value, kChecksums, out.checksums, error)) return false;
    } else {
      if (!parse_list(flag, value, kPolicies, out.policies, error)) return false;
    }
  }
  return true;
}

std::string usage(BenchKind kind, const char* program) {
  const bool bw = kind == BenchKind::bandwidth;
  return fmt::format(
      "usage: lapirun -n 2 {} [options]\n"
      "  Lapis {} beside a raw-UCX baseline measured in the same run (interleaved).\n"
      "  --sizes LIST    sizes and LO:HI power-of-two ranges, suffix K/M (default 1:4M)\n"
      "  --iters N       timed {} per repetition (default: scaled by size)\n"
      "  --reps N        repetitions; median and {} are reported (default 5)\n"
      "{}"
      "  --op LIST       amsend,put (default both)\n"
      "  --mode LIST     polling,interrupt (default both)\n"
      "  --policy LIST   inline,thread,fiber completion policies for Amsend (default all)\n"
      "  --checksum LIST none,crc32c: a Lapis context each, alternated in every repetition\n"
      "                  (default: one context, as LAPIS_CHECKSUM says)\n"
      "  --json          one JSON object per line instead of a table\n",
      program, bw ? "streaming bandwidth" : "ping-pong latency",
      bw ? "windows" : "round trips", bw ? "best" : "min",
      bw ? "  --window N      sends outstanding before each acknowledgement (default 64)\n" : "");
}

int iterations_for(const Options& options, BenchKind kind, std::size_t size,
                   lapi::ProgressMode mode) {
  if (options.iters > 0) return options.iters;
  const bool interrupt = mode == lapi::ProgressMode::interrupt;
  if (kind == BenchKind::latency) {
    // About 16 MiB moved per repetition for large sizes, in both modes: a
    // blocking round trip costs a few microseconds, and the mean of fewer is
    // hostage to one preemption (compare_mpi's interrupt step divides by it).
    const std::size_t by_volume = (std::size_t{16} << 20) / size;
    return static_cast<int>(std::clamp<std::size_t>(by_volume, 10, 1000));
  }
  const std::size_t window_bytes = size * static_cast<std::size_t>(options.window);
  const std::size_t base = interrupt ? 50 : 200;
  const std::size_t by_volume = (std::size_t{256} << 20) / window_bytes;
  return static_cast<int>(std::clamp<std::size_t>(std::min(base, by_volume), 2, base));
}

int warmup_for(int iters) { return std::max(2, iters / 10); }

std::string_view op_name(Op op) { return op == Op::amsend ? "amsend" : "put"; }

std::string_view mode_name(lapi::ProgressMode mode) {
  return mode == lapi::ProgressMode::polling ? "polling" : "interrupt";
}

std::string_view policy_name(lapi::CompletionPolicy policy) {
  switch (policy) {
    case lapi::CompletionPolicy::inline_run: return "inline";
    case lapi::CompletionPolicy::thread: return "thread";
    case lapi::CompletionPolicy::fiber: return "fiber";
  }
  return "?";
}

std::string size_label(std::size_t size) {
  if (size >= (1u << 20) && size % (1u << 20) == 0) return fmt::format("{}M", size >> 20);
  if (size >= 1024 && size % 1024 == 0) return fmt::format("{}K", size >> 10);
  return fmt::format("{}", size);
}

}  // namespace lapis::benchmarks
