// Command line of mpi_paper_latency: its own flags, then the shared latency
// flags (--sizes, --iters, --reps, --mode, --json) through parse_options.

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "benchmarks/paper/paper.hpp"

namespace lapis::benchmarks::paper {
namespace {

bool parse_variants(std::string_view text, std::vector<std::string>& out, std::string& error) {
  out.clear();
  while (true) {
    const auto comma = text.find(',');
    const std::string item(text.substr(0, comma));
    if (item != "base" && item != "counters" && item != "enhanced") {
      error =
          fmt::format("--variants: unknown variant '{}' (expected base,counters,enhanced)", item);
      return false;
    }
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool parse_number(std::string_view text, double lo, double hi, double& out) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !(value >= lo) || value > hi) {
    return false;
  }
  out = value;
  return true;
}

}  // namespace

bool parse_paper_options(int argc, const char* const* argv, PaperOptions& out, std::string& error) {
  out = PaperOptions{};
  // Our flags are taken out here; the rest goes to the shared parser.
  std::vector<const char*> rest{argc > 0 ? argv[0] : kProgram};
  bool reps_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--child") {
      out.child = true;
      continue;
    }
    if (flag == "--op" || flag == "--policy") {
      error = fmt::format(
          "{}: not an option of {} (it always measures raw Put, raw Amsend "
          "and MPI; the variant sets the policy)",
          flag, kProgram);
      return false;
    }
    const bool ours = flag == "--variants" || flag == "--lapirun" || flag == "--timeout" ||
                      flag == "--inner-reps";
    if (!ours) {
      if (flag == "--reps") reps_given = true;
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) {
      error = fmt::format("{}: missing value", flag);
      return false;
    }
    const std::string_view value = argv[++i];
    double number = 0;
    if (flag == "--variants") {
      if (!parse_variants(value, out.variants, error)) return false;
    } else if (flag == "--lapirun") {
      out.lapirun = std::string(value);
    } else if (flag == "--timeout") {
      if (!parse_number(value, 1, 86400, number)) {
        error = fmt::format("--timeout: '{}' is not seconds in 1..86400", value);
        return false;
      }
      out.timeout_s = number;
    } else {
      if (!parse_number(value, 1, 1000, number) || number != static_cast<int>(number)) {
        error = fmt::format("--inner-reps: '{}' is not an integer in 1..1000", value);
        return false;
      }
      out.inner_reps = static_cast<int>(number);
    }
  }
  if (!parse_options(static_cast<int>(rest.size()), rest.data(), BenchKind::latency, out.common,
                     error)) {
    return false;
  }
  if (!reps_given) out.common.reps = 3;
  return true;
}

std::string paper_usage() {
  return fmt::format(
      "usage: {} [options]          (starts its own `lapirun -n 2` jobs)\n"
      "  Raw Lapis Put and Amsend latency beside MPI ping-pong under the MPCPI variants\n"
      "  base, counters and enhanced (the MPI-LAPI paper's figures 13-15). One job per\n"
      "  (variant, mode, rep), interleaved; each job also measures raw Put and Amsend,\n"
      "  so MPI/raw ratios come from the same processes.\n"
      "  --sizes LIST       sizes and LO:HI power-of-two ranges, suffix K/M (default 1:4M)\n"
      "  --iters N          timed round trips per measurement (default: scaled by size)\n"
      "  --reps N           jobs per variant and mode; median and min over them (default 3)\n"
      "  --inner-reps N     alternating repetitions inside a job, median kept (default 3)\n"
      "  --mode LIST        polling,interrupt (default both)\n"
      "  --variants LIST    base,counters,enhanced (default all)\n"
      "  --lapirun PATH     launcher (default: the one built beside this binary)\n"
      "  --timeout S        seconds per job before lapirun ends it (default 300)\n"
      "  --json             one JSON object per line:\n"
      "                     {{\"bench\":\"paper\",\"variant\":\"raw_put\"|\"raw_amsend\"|\"base\"|"
      "\"counters\"|\"enhanced\",\"size\":…,\"us\":…}}\n",
      kProgram);
}

}  // namespace lapis::benchmarks::paper
