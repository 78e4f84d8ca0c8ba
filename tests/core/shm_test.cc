// Runs shm_ranks under lapirun: with the channel (2, 4 and 8 ranks, more
// than cores) and without it (LAPIS_SHM=0), and with the methods
// LAPIS_TRANSPORTS allows (tcp alone: UCX over loopback).

#include <doctest/doctest.h>

#include <string>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("shared-memory channel on and off") {
  for (const char* shm : {"1", "0"}) {
    for (int ranks : {2, 4, 8}) {
      CAPTURE(shm);
      CAPTURE(ranks);
      const auto r = launch({ranks, 180, {std::string("LAPIS_SHM=") + shm}}, "tests/core/shm_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}

TEST_CASE("LAPIS_TRANSPORTS: shm alone, tcp alone") {
  for (const char* transports : {"shm", "tcp"}) {
    CAPTURE(transports);
    const auto r = launch({2, 180, {std::string("LAPIS_TRANSPORTS=") + transports}}, "tests/core/shm_ranks");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}
