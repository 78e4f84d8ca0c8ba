// Runs amsend_ranks under lapirun in both progress modes and all three
// completion policies, with more ranks than cores.

#include <doctest/doctest.h>

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::testing::launch;

// Under ThreadSanitizer (66 s of a CI run for the 12 jobs) 2 ranks only,
// and not polling mode's inline policy, which starts no thread
// (worth_running): what it looks for is where the handler thread, the fibers
// and the progress thread meet the application's, not how many ranks share
// the cores.

TEST_CASE("amsend in every mode and policy") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (const char* policy : {"inline", "thread", "fiber"}) {
      for (int ranks : {2, 4}) {
        const std::vector<std::string> env = {std::string("LAPIS_MODE=") + mode,
                                              std::string("LAPIS_POLICY=") + policy};
        if (lapis::testing::kThreadSanitizer && ranks != 2) continue;
        if (!lapis::testing::worth_running(env)) continue;
        CAPTURE(mode);
        CAPTURE(policy);
        CAPTURE(ranks);
        const auto r = launch({.ranks = ranks, .timeout_s = 120, .env = env, .flags = {}},
                              "tests/core/amsend_ranks");
        INFO(r.output);
        CHECK(r.status == 0);
      }
    }
  }
}

TEST_CASE("amsend of 1 GiB (rendezvous, zero-copy into the landing buffer)") {
  const auto r = launch({.ranks = 2, .timeout_s = 300, .env = {"LAPIS_TEST_HUGE=1"}, .flags = {}},
                        "tests/core/amsend_ranks", {"--test-case=amsend of 1 GiB*"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("1 passed") != std::string::npos);
}

TEST_CASE("the same rank program runs under a PMIx launcher (mpirun.openmpi)") {
  if (std::system("command -v mpirun.openmpi >/dev/null 2>&1") != 0) {
    MESSAGE("SKIPPED: mpirun.openmpi is not installed (Debian package openmpi-bin)");
    return;
  }
  // Open MPI keys its session directory on mpirun's pid under $TMPDIR;
  // sandboxed tests share pids, so each run gets its own.
  std::string tmpdir = "/tmp/lapis-core-pmix-XXXXXX";
  REQUIRE(::mkdtemp(tmpdir.data()) != nullptr);
  const std::string cmd = "TMPDIR=" + tmpdir +
                          " timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 " +
                          lapis::testing::runfile("tests/core/amsend_ranks") + " --no-colors 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  const int status = ::pclose(pipe);
  std::filesystem::remove_all(tmpdir);
  INFO(output);
  CHECK(status == 0);
  std::size_t successes = 0;
  for (auto at = output.find("Status: SUCCESS"); at != std::string::npos;
       at = output.find("Status: SUCCESS", at + 1)) {
    ++successes;
  }
  CHECK(successes == 4);
}
