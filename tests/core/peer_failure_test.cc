// lapirun --continue-on-failure with a task killed mid-job: the launcher
// names it and keeps the others running; they end well (peer_failure_ranks)
// and the job's status is still the failure's.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("a killed task ends alone under --continue-on-failure") {
  for (const char* mode : {"polling", "interrupt"}) {
    CAPTURE(mode);
    const auto r = launch({.ranks = 3,
                           .timeout_s = 60,
                           .env = {std::string("LAPIS_MODE=") + mode},
                           .flags = {"--continue-on-failure"}},
                          "tests/core/peer_failure_ranks");
    INFO(r.output);
    CHECK(r.status == 128 + 9);
    CHECK(r.output.find("rank 2 killed by signal 9") != std::string::npos);
    CHECK(r.output.find("the others go on (--continue-on-failure)") != std::string::npos);
    // Both survivors' doctest summaries: every assertion passed.
    std::size_t passed = 0;
    for (std::size_t at = 0; (at = r.output.find("Status: SUCCESS!", at)) != std::string::npos; ++at) ++passed;
    CHECK(passed == 2);
  }
}

TEST_CASE("without the option a killed task still ends the job") {
  const auto r = launch({.ranks = 3, .timeout_s = 60, .env = {}, .flags = {}},
                        "tests/core/peer_failure_ranks");
  INFO(r.output);
  CHECK(r.status == 128 + 9);
  CHECK(r.output.find("the others go on") == std::string::npos);
}
