// The corpus test of one harness (fuzz.bzl): every checked-in input runs
// clean. A crash or sanitizer report fails the test; so does an empty or
// missing corpus.

#include <doctest/doctest.h>

#include "tests/fuzz/replay.hpp"

TEST_CASE("every input of the corpus runs through the harness") {
  const long ran = lapis::fuzz::replay(FUZZ_CORPUS);
  INFO("corpus: " << FUZZ_CORPUS);
  CHECK(ran > 0);
}
