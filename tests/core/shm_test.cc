// Runs shm_ranks under lapirun: with the channel (2, 4 and 8 ranks, more
// than cores) and without it (LAPIS_SHM=0), and with the methods
// LAPIS_TRANSPORTS allows and LAPIS_PATHS asks (tcp: UCX over loopback).

#include <doctest/doctest.h>

#include <string>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("shared-memory channel on and off") {
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

TEST_CASE("LAPIS_TRANSPORTS shm alone, tcp alone; LAPIS_PATHS with TCP for every pair") {
  for (const char* setting :
       {"LAPIS_TRANSPORTS=shm", "LAPIS_TRANSPORTS=tcp", "LAPIS_PATHS=*-*=tcp"}) {
    CAPTURE(setting);
    const auto r = launch({.ranks = 2, .timeout_s = 180, .env = {setting}, .flags = {}},
                          "tests/core/shm_ranks");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}
