// process_bootstrap() under Open MPI's mpirun, which is a PMIx server.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <variant>

#include "runtime/launcher_options.hpp"
#include "tests/runtime/subprocess.hpp"

using namespace lapis::runtime::testing;

TEST_CASE("collectives through PMIx under mpirun.openmpi") {
  const char* path = std::getenv("PATH");
  if (std::holds_alternative<lapis::runtime::UsageError>(
          lapis::runtime::resolve_program("mpirun.openmpi", path ? path : "/usr/bin:/bin"))) {
    MESSAGE("SKIPPED: mpirun.openmpi is not installed (Debian package openmpi-bin)");
    return;
  }
  // Open MPI keys its session directory (and PMIx server sockets) on mpirun's pid under $TMPDIR.
  // Sandboxed tests each run in a pid namespace, so concurrent runs would share both: give each
  // run its own TMPDIR (short, for socket paths).
  std::string tmpdir = "/tmp/lapis-pmix-XXXXXX";
  REQUIRE(::mkdtemp(tmpdir.data()) != nullptr);
  const Outcome outcome = run({{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "4", probe_path(),
                                "check", "4", "pmix"},
                               {{"TMPDIR", tmpdir}},
                               120});
  std::filesystem::remove_all(tmpdir);
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  for (int r = 0; r < 4; ++r) {
    CHECK(outcome.out.find("rank " + std::to_string(r) + " of 4: ok (pmix)") != std::string::npos);
  }
}
