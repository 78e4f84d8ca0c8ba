// Context-slot agreement bookkeeping for concurrent communicator creation
// (MPI_THREAD_MULTIPLE): only the agreement over the lowest parent slot
// offers slots, what it offered is reserved from the others, and an offer
// of nothing says "try again" unless no slot is free at all.
#include <doctest/doctest.h>

#include "mpi/internal/comm.hpp"

using mpi::ContextSlots;

namespace {
int count(const std::uint64_t (&w)[ContextSlots::kWords]) {
  int n = 0;
  for (std::uint64_t v : w) n += __builtin_popcountll(v);
  return n;
}
}  // namespace

TEST_CASE("one agreement offers every free slot and gets the lowest") {
  ContextSlots slots;
  std::uint64_t w[ContextSlots::kWords];
  slots.begin_agreement(0);
  CHECK(slots.offer(0, w));
  CHECK(count(w) == mpi::kContextSlots - 2);  // world and self are taken
  CHECK(ContextSlots::lowest(w) == 2);
  slots.withdraw(w);
  slots.end_agreement(0);
}

TEST_CASE("agreements over other parents at once: the lowest parent leads, offers are disjoint") {
  ContextSlots slots;
  std::uint64_t lead[ContextSlots::kWords], other[ContextSlots::kWords];
  slots.begin_agreement(5);
  CHECK(slots.offer(5, lead));  // alone: leads
  slots.begin_agreement(3);     // a lower parent arrives while 5's offer is out
  CHECK_FALSE(slots.offer(5, other));  // 5 no longer leads: nothing, try again
  CHECK(count(other) == 0);
  CHECK_FALSE(slots.offer(3, other));  // leads, but 5 holds every free slot
  CHECK(count(other) == 0);
  slots.withdraw(lead);
  CHECK(slots.offer(3, other));  // now it gets them
  CHECK(ContextSlots::lowest(other) == 2);
  slots.take(2);  // register_comm
  slots.withdraw(other);
  slots.end_agreement(3);
  CHECK(slots.offer(5, lead));  // 5 leads again, slot 2 is gone
  CHECK(ContextSlots::lowest(lead) == 3);
  slots.withdraw(lead);
  slots.end_agreement(5);
}

TEST_CASE("an offer without the slots another agreement holds is partial") {
  ContextSlots slots;
  std::uint64_t held[ContextSlots::kWords], part[ContextSlots::kWords];
  slots.take(700);
  slots.begin_agreement(5);
  CHECK(slots.offer(5, held));  // every free slot, reserved
  slots.begin_agreement(3);
  slots.release(700);  // a communicator freed meanwhile
  CHECK_FALSE(slots.offer(3, part));  // offers slot 700 alone: partial
  CHECK(count(part) == 1);
  CHECK(ContextSlots::lowest(part) == 700);
  slots.withdraw(part);
  slots.withdraw(held);
  slots.end_agreement(3);
  slots.end_agreement(5);
}

TEST_CASE("no free slot at all is not a retry") {
  ContextSlots slots;
  for (int i = 0; i < mpi::kContextSlots; ++i) slots.take(i);
  std::uint64_t w[ContextSlots::kWords];
  slots.begin_agreement(0);
  CHECK(slots.offer(0, w));  // offers nothing, and nothing is reserved: a real failure
  CHECK(ContextSlots::lowest(w) == -1);
  slots.end_agreement(0);
}
