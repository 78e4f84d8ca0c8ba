// Runs direct_ranks under lapirun: in interrupt mode (where receives are
// announced and senders write into them), in polling mode and with
// LAPIS_DIRECT_RECV=0 (where nothing is announced and every case must come
// out the same through the usual protocol), in two variants.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

namespace {

void run(std::vector<std::string> env) {
  std::string shown;
  for (const auto& e : env) shown += e + " ";
  CAPTURE(shown);
  const auto r = launch({.ranks = 2, .timeout_s = 120, .env = env, .flags = {}}, "tests/mpcpi/direct_ranks");
  INFO(r.output);
  CHECK(r.status == 0);
}

}  // namespace

TEST_CASE("interrupt mode: announced receives are written into directly") {
  for (const char* variant : {"enhanced", "base"}) {
    run({"LAPIS_MODE=interrupt", std::string("LAPIS_MPI_VARIANT=") + variant, "DIRECT_EXPECTED=1"});
  }
}

TEST_CASE("polling mode, or LAPIS_DIRECT_RECV=0: nothing announced, the same outcomes") {
  run({"LAPIS_MODE=polling", "DIRECT_EXPECTED=0"});
  run({"LAPIS_MODE=interrupt", "LAPIS_DIRECT_RECV=0", "DIRECT_EXPECTED=0"});
}
