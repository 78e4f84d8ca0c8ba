// The driver of mpi_paper_latency: one `lapirun -n 2` job of this binary
// (--child) per (rep, mode, variant), interleaved; collects the child lines
// and reports medians over the jobs.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "benchmarks/paper/paper.hpp"
#include "benchmarks/report.hpp"

namespace lapis::benchmarks::paper {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

std::string self_path() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// --lapirun, else this binary's runfiles, else bazel-bin's runtime/ beside
// benchmarks/, else PATH.
std::string find_lapirun(const std::string& given, const std::string& self) {
  if (!given.empty()) return given;
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("RUNFILES_DIR")) {
    candidates.push_back(std::string(dir) + "/lapis/runtime/lapirun");
  }
  candidates.push_back(self + ".runfiles/lapis/runtime/lapirun");
  const auto slash = self.rfind('/');
  if (slash != std::string::npos)
    candidates.push_back(self.substr(0, slash) + "/../runtime/lapirun");
  for (const auto& c : candidates) {
    if (executable(c)) return c;
  }
  return "lapirun";
}

struct JobOutput {
  int status = -1;
  std::vector<std::string> lines;  // every output line
};

JobOutput run_job(const std::string& command) {
  JobOutput out;
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  std::string text;
  char chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) text.append(chunk, n);
  const int status = ::pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The value of "key" in one flat child line, as text ("" if absent).
std::string field(const std::string& line, const std::string& key) {
  const std::string pattern = "\"" + key + "\":";
  const auto at = line.find(pattern);
  if (at == std::string::npos) return {};
  std::size_t i = at + pattern.size();
  if (i < line.size() && line[i] == '"') {
    const auto end = line.find('"', i + 1);
    return end == std::string::npos ? std::string() : line.substr(i + 1, end - i - 1);
  }
  const auto end = line.find_first_of(",}", i);
  return line.substr(i, end == std::string::npos ? std::string::npos : end - i);
}

struct ChildLine {
  std::string variant;
  std::string mode;
  std::size_t size = 0;
  double us = 0;
};

bool parse_child_line(const std::string& line, ChildLine& out) {
  if (line.rfind(R"({"bench":"paper_child")", 0) != 0) return false;
  out.variant = field(line, "variant");
  out.mode = field(line, "mode");
  out.size = std::strtoull(field(line, "size").c_str(), nullptr, 10);
  out.us = std::strtod(field(line, "us").c_str(), nullptr);
  return !out.variant.empty() && out.size > 0 && out.us > 0;
}

using Key = std::tuple<std::string, std::size_t, std::string>;  // mode, size, variant

class Driver {
 public:
  explicit Driver(const PaperOptions& options) : options_(options) {}

  int run() {
    const std::string self = self_path();
    const std::string lapirun = find_lapirun(options_.lapirun, self);
    const int nv = static_cast<int>(options_.variants.size());
    const int jobs = options_.common.reps * static_cast<int>(options_.common.modes.size()) * nv;
    int job = 0;
    for (int rep = 0; rep < options_.common.reps; ++rep) {
      for (const auto mode : options_.common.modes) {
        for (int k = 0; k < nv; ++k) {
          const std::string& variant = options_.variants[(k + rep) % nv];
          ++job;
          fmt::print(stderr, "{}: job {}/{}: {} MPI, {} mode\n", kProgram, job, jobs, variant,
                     mode_name(mode));
          if (!run_one(lapirun, self, variant, std::string(mode_name(mode)))) return 1;
        }
      }
    }
    report();
    return 0;
  }

 private:
  bool run_one(const std::string& lapirun, const std::string& self, const std::string& variant,
               const std::string& mode) {
    std::string sizes;
    for (const std::size_t s : options_.common.sizes)
      sizes += fmt::format("{}{}", sizes.empty() ? "" : ",", s);
    std::string command = fmt::format(
        "{} -n 2 --timeout {} -x LAPIS_MPI_VARIANT={} -x LAPIS_MODE={} {} --child --sizes {} "
        "--inner-reps {}",
        shell_quote(lapirun), options_.timeout_s, variant, mode, shell_quote(self), sizes,
        options_.inner_reps);
    if (options_.common.iters > 0) command += fmt::format(" --iters {}", options_.common.iters);
    const JobOutput out = run_job(command);
    std::map<std::size_t, double> raw_amsend;
    std::vector<ChildLine> mpi_lines;
    std::size_t parsed = 0;
    for (const auto& line : out.lines) {
      ChildLine c;
      if (!parse_child_line(line, c)) continue;
      ++parsed;
      values_[{mode, c.size, c.variant}].push_back(c.us);
      if (c.variant == "raw_amsend") raw_amsend[c.size] = c.us;
      if (c.variant == variant) mpi_lines.push_back(c);
    }
    for (const auto& c : mpi_lines) {
      const auto hit = raw_amsend.find(c.size);
      if (hit != raw_amsend.end()) ratios_[{mode, c.size, c.variant}].push_back(c.us / hit->second);
    }
    const std::size_t expected = 3 * options_.common.sizes.size();
    if (out.status != 0 || parsed != expected) {
      fmt::print(stderr, "{}: job ({} MPI, {} mode) failed: status {}, {} of {} results\n{}\n",
                 kProgram, variant, mode, out.status, parsed, expected, command);
      for (const auto& line : out.lines) fmt::print(stderr, "  | {}\n", line);
      return false;
    }
    return true;
  }

  static Stats stats_of(const std::map<Key, std::vector<double>>& table, const Key& key) {
    const auto hit = table.find(key);
    return hit == table.end() ? Stats{} : summarize(hit->second, /*higher_is_better=*/false);
  }

  void report() const {
    std::vector<std::string> columns{"raw_put", "raw_amsend"};
    columns.insert(columns.end(), options_.variants.begin(), options_.variants.end());
    for (const auto mode_enum : options_.common.modes) {
      const std::string mode(mode_name(mode_enum));
      if (!options_.common.json) {
        fmt::print(
            "# {}: one-way latency in us, median (min) over {} jobs per variant, {} mode\n"
            "# <variant>/am = MPI latency / raw Amsend latency of the same job (median)\n",
            kProgram, options_.common.reps, mode);
        fmt::print("{:>5}", "size");
        for (const auto& c : columns) fmt::print(" {:>17}", c);
        for (const auto& v : options_.variants) fmt::print(" {:>11}", v + "/am");
        fmt::print("\n");
      }
      for (const std::size_t size : options_.common.sizes) row(mode, size, columns);
      if (!options_.common.json) fmt::print("\n");
    }
    std::fflush(stdout);
  }

  void row(const std::string& mode, std::size_t size,
           const std::vector<std::string>& columns) const {
    if (options_.common.json) {
      for (const auto& c : columns) {
        const Stats s = stats_of(values_, {mode, size, c});
        std::string line = fmt::format(
            R"({{"bench":"paper","variant":"{}","mode":"{}","size":{},"us":{:.4f},"min_us":{:.4f},"reps":{})",
            c, mode, size, s.median, s.best, options_.common.reps);
        if (c != "raw_put" && c != "raw_amsend") {
          line += fmt::format(R"(,"over_raw_amsend":{:.4f})",
                              stats_of(ratios_, {mode, size, c}).median);
        }
        fmt::print("{}}}\n", line);
      }
      return;
    }
    fmt::print("{:>5}", size_label(size));
    for (const auto& c : columns) {
      const Stats s = stats_of(values_, {mode, size, c});
      fmt::print(" {:>17}", fmt::format("{:.3f} ({:.3f})", s.median, s.best));
    }
    for (const auto& v : options_.variants) {
      fmt::print(" {:>11.2f}", stats_of(ratios_, {mode, size, v}).median);
    }
    fmt::print("\n");
  }

  const PaperOptions& options_;
  std::map<Key, std::vector<double>> values_;  // one-way µs per job
  std::map<Key, std::vector<double>> ratios_;  // MPI / raw Amsend per job
};

}  // namespace

int run_driver(const PaperOptions& options) { return Driver(options).run(); }

}  // namespace lapis::benchmarks::paper
