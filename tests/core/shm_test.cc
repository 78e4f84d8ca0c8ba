// Runs shm_ranks under lapirun: with the channel (2, 4 and 8 ranks, more
// than cores) and without it (LAPIS_SHM=0), and with the methods
// LAPIS_TRANSPORTS allows and LAPIS_PATHS asks (tcp: UCX over loopback).
// Under ThreadSanitizer only the interrupt-mode case: the others run in
// polling mode with inline handlers, where no thread but the rank's own
// touches the engine (the ring between processes is beyond TSan's sight).

#include <doctest/doctest.h>

#include <string>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::testing::launch;

TEST_CASE("shared-memory channel on and off" * doctest::skip(lapis::testing::kThreadSanitizer)) {
  for (const char* shm : {"1", "0"}) {
    for (int ranks : {2, 4, 8}) {
      CAPTURE(shm);
      CAPTURE(ranks);
      const auto r = launch(
          {.ranks = ranks, .timeout_s = 180, .env = {std::string("LAPIS_SHM=") + shm}, .flags = {}},
          "tests/core/shm_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}

// Interrupt mode: a task waits asleep, and what waits for room in a full ring goes through UCX
// before it sleeps (ring_backlog.hpp). The full ring's case only: the others send raw frames,
// which a peer asleep refuses, and its progress thread sleeps most of the time.
TEST_CASE("a full ring in interrupt mode") {
  const auto r =
      launch({.ranks = 2, .timeout_s = 180, .env = {"LAPIS_MODE=interrupt"}, .flags = {}},
             "tests/core/shm_ranks", {"--test-case=a full ring*"});
  INFO(r.output);
  CHECK(r.status == 0);
}

TEST_CASE("LAPIS_TRANSPORTS shm alone, tcp alone; LAPIS_PATHS with TCP for every pair" *
          doctest::skip(lapis::testing::kThreadSanitizer)) {
  for (const char* setting :
       {"LAPIS_TRANSPORTS=shm", "LAPIS_TRANSPORTS=tcp", "LAPIS_PATHS=*-*=tcp"}) {
    CAPTURE(setting);
    const auto r = launch({.ranks = 2, .timeout_s = 180, .env = {setting}, .flags = {}},
                          "tests/core/shm_ranks");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}

// A rule asking for a method the job's LAPIS_TRANSPORTS leaves out cannot hold: every task says
// so at init, naming the rule, and the job ends (nothing waits for the missing method).
TEST_CASE("LAPIS_PATHS asking for tcp when LAPIS_TRANSPORTS=shm is an init error naming the rule") {
  const auto r = launch({.ranks = 2,
                         .timeout_s = 60,
                         .env = {"LAPIS_TRANSPORTS=shm", "LAPIS_PATHS=*-*=tcp"},
                         .flags = {}},
                        "tests/core/shm_ranks");
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("LAPIS_PATHS rule '*-*=tcp' asks for tcp, which LAPIS_TRANSPORTS leaves out") !=
        std::string::npos);
}
