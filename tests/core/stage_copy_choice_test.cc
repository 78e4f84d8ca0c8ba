// lapi/internal/stage_copy_choice.hpp: a staged chunk goes the way whose
// two copies (the origin's in, the target's out) took less of late, each
// way is tried before either is trusted, and the slower one is still tried
// now and then.

#include "lapi/internal/stage_copy_choice.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using lapi::internal::StageCopyChoice;

namespace {

// Runs `batches` batches, timing each chunk with the origin's figure for its
// way, and counts the batches that streamed.
std::uint32_t streamed_batches(StageCopyChoice& choice, const std::uint64_t (&target_ns)[2],
                               const std::uint64_t (&origin_ns)[2], std::uint32_t batches) {
  std::uint32_t streamed = 0;
  for (std::uint32_t b = 0; b < batches; ++b) {
    bool first = false;
    for (std::uint32_t c = 0; c < StageCopyChoice::kBatch; ++c) {
      const bool way = choice.next(target_ns);
      if (c == 0) first = way;
      CHECK(way == first);  // a batch goes one way
      choice.timed(way, origin_ns[way]);
    }
    streamed += first;
  }
  return streamed;
}

}  // namespace

TEST_CASE("the cached copy goes first, until the target has timed both ways") {
  StageCopyChoice choice;
  const std::uint64_t unknown[2] = {0, 0};
  CHECK(streamed_batches(choice, unknown, {1000, 1000}, 4) == 0);
  const std::uint64_t cached_only[2] = {500, 0};
  CHECK(streamed_batches(choice, cached_only, {1000, 1000}, 1) == 1);  // streaming tried next
}

TEST_CASE("streaming wins where the cached copy crawls, and loses where the target pays for it") {
  const std::uint32_t kBatches = 4 * StageCopyChoice::kProbeEvery;
  SUBCASE("the origin's cached copy 17x its streaming one (lines held in the target's cache)") {
    StageCopyChoice choice;
    const std::uint64_t target[2] = {2000, 5000};
    const std::uint32_t streamed = streamed_batches(choice, target, {35000, 2000}, kBatches);
    CHECK(streamed >= kBatches - kBatches / StageCopyChoice::kProbeEvery - 2);
    CHECK(streamed < kBatches);  // the cached copy is still tried
  }
  SUBCASE("streaming cheap for the origin, dear for the target reading from memory") {
    StageCopyChoice choice;
    const std::uint64_t target[2] = {1300, 6000};
    const std::uint32_t streamed = streamed_batches(choice, target, {2600, 1500}, kBatches);
    CHECK(streamed <= kBatches / StageCopyChoice::kProbeEvery + 2);
    CHECK(streamed > 0);  // and streaming is still tried
  }
}
