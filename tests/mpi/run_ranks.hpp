#pragma once
// Runs one of the MPI test programs (tests/mpi/progs) as N ranks under
// lapirun and checks that every rank printed "OK" and nobody "FAILED".

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

namespace lapis::mpi_tests {

inline int count_lines(const std::string& text, const std::string& line) {
  int n = 0;
  std::size_t pos = 0;
  while ((pos = text.find(line, pos)) != std::string::npos) {
    if (pos == 0 || text[pos - 1] == '\n') ++n;
    pos += line.size();
  }
  return n;
}

inline void expect_ok(const std::string& program, int ranks, std::vector<std::string> env = {},
                      std::vector<std::string> args = {}, int timeout_s = 120) {
  lapis::testing::LaunchOptions options;
  options.ranks = ranks;
  options.timeout_s = timeout_s;
  options.env = std::move(env);
  auto result = lapis::testing::launch(options, "tests/mpi/progs/" + program, args);
  INFO(program, " with ", ranks, " ranks:\n", result.output);
  CHECK(result.status == 0);
  CHECK(count_lines(result.output, "OK\n") == ranks);
  CHECK(result.output.find("FAILED") == std::string::npos);
}

// Runs `program` as `ranks` ranks under lapirun --continue-on-failure with
// `env`, where ranks fail on purpose: the job ends with that failure's
// `status` and each of the `survivors` prints "OK". Returns the output.
inline std::string expect_survivors_ok(const std::string& program, int ranks, int survivors, int status,
                                       std::vector<std::string> env = {}) {
  lapis::testing::LaunchOptions options;
  options.ranks = ranks;
  options.timeout_s = 60;
  options.env = std::move(env);
  options.flags = {"--continue-on-failure"};
  auto result = lapis::testing::launch(options, "tests/mpi/progs/" + program);
  INFO(program, " with ", ranks, " ranks:\n", result.output);
  CHECK(result.status == status);
  CHECK(count_lines(result.output, "OK\n") == survivors);
  CHECK(result.output.find("FAILED") == std::string::npos);
  return result.output;
}

// One rank (self paths), a pair, an odd count, a power of two and more ranks
// than cores. Under a sanitizer every rank is several times slower and the
// 8-rank jobs dominate the suite's time: there 1, 3 and 4 keep self, odd and
// power-of-two paths (the default build runs them all).
inline const std::vector<int> kRankCounts =
    lapis::testing::kSanitized ? std::vector<int>{1, 3, 4} : std::vector<int>{1, 2, 3, 4, 8};

}  // namespace lapis::mpi_tests
