// The soak program (tools/soak.sh runs it for minutes) for two seconds at 4
// ranks: every message checked, no errors, one JSON row per rank.
#include <doctest/doctest.h>

#include <string>

#include "tests/support/launch.hpp"

TEST_CASE("mpi_soak runs mixed traffic without errors") {
  for (const char* mode : {"LAPIS_MODE=polling", "LAPIS_MODE=interrupt"}) {
    CAPTURE(mode);
    lapis::testing::LaunchOptions options;
    options.ranks = 4;
    options.timeout_s = 120;
    options.env = {mode};
    const auto r = lapis::testing::launch(options, "benchmarks/mpi_soak",
                                          {"--seconds", "2", "--max-size", "262144", "--json"});
    INFO(r.output);
    CHECK(r.status == 0);
    int rows = 0;
    for (std::size_t p = r.output.find("\"bench\":\"soak\""); p != std::string::npos;
         p = r.output.find("\"bench\":\"soak\"", p + 1)) {
      ++rows;
    }
    CHECK(rows == 4);
    CHECK(r.output.find("\"errors\":0,") != std::string::npos);
    CHECK(r.output.find(", 0 errors") != std::string::npos);
  }
}
