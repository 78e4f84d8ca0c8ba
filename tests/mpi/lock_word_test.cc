// The passive-target lock word's rules (mpi/internal/rma/lock_word.hpp),
// alone and played through one interleaving of readers and writers.

#include <doctest/doctest.h>

#include <cstdint>

#include "mpi/internal/rma/lock_word.hpp"

using namespace mpi::rma;

TEST_CASE("a shared request enters unless a writer holds the lock or waits for it") {
  CHECK(shared_lock_taken(0));
  CHECK(shared_lock_taken(3));
  CHECK_FALSE(shared_lock_taken(kLockExclusive));
  CHECK_FALSE(shared_lock_taken(kLockWriterWaiting));
  CHECK_FALSE(shared_lock_taken(kLockWriterWaiting | 2));
  CHECK_FALSE(shared_lock_taken(kLockExclusive | kLockWriterWaiting));
}

TEST_CASE("an exclusive request's next step from what its swap found") {
  CHECK(exclusive_step(0, 0) == ExclusiveStep::taken);
  CHECK(exclusive_step(kLockWriterWaiting, kLockWriterWaiting) == ExclusiveStep::taken);
  // Free after all: swap again from what is there.
  CHECK(exclusive_step(kLockWriterWaiting, 0) == ExclusiveStep::swap_again);
  CHECK(exclusive_step(0, kLockWriterWaiting) == ExclusiveStep::swap_again);
  // ... unless a new request may still defer to the writer whose flag that is.
  CHECK(exclusive_step(0, kLockWriterWaiting, true) == ExclusiveStep::defer);
  CHECK(exclusive_step(kLockWriterWaiting, kLockWriterWaiting, true) == ExclusiveStep::taken);
  CHECK(exclusive_step(kLockWriterWaiting, 0, true) == ExclusiveStep::swap_again);
  CHECK(exclusive_step(0, 0, true) == ExclusiveStep::taken);
  // Held, nobody waiting yet (readers; or a writer whose swap cleared the flag).
  CHECK(exclusive_step(0, 2) == ExclusiveStep::raise_flag);
  CHECK(exclusive_step(kLockWriterWaiting, kLockExclusive) == ExclusiveStep::raise_flag);
  // Held with the flag up.
  CHECK(exclusive_step(kLockWriterWaiting, kLockWriterWaiting | 1) == ExclusiveStep::back_off);
  CHECK(exclusive_step(kLockWriterWaiting, kLockExclusive | kLockWriterWaiting) ==
        ExclusiveStep::back_off);
}

namespace {

// The target's word, and the attempts window.cc makes on it, one atomic at a time.
struct Word {
  std::uint64_t value = 0;

  bool try_shared() {  // fetch-and-add 1; takes it back when refused
    const std::uint64_t prev = value;
    value += 1;
    if (shared_lock_taken(prev)) return true;
    value -= 1;
    return false;
  }
  void unlock_shared() { value -= 1; }
  // One round of an exclusive request; `expected` carries over between rounds.
  bool try_exclusive(std::uint64_t& expected, bool may_defer = false) {
    for (;;) {
      const std::uint64_t seen = value;  // compare-and-swap kLockExclusive for `expected`
      if (seen == expected) value = kLockExclusive;
      switch (exclusive_step(expected, seen, may_defer)) {
        case ExclusiveStep::taken: return true;
        case ExclusiveStep::defer: return false;  // expected stays 0
        case ExclusiveStep::swap_again: expected = seen; continue;
        case ExclusiveStep::raise_flag: value |= kLockWriterWaiting; break;
        case ExclusiveStep::back_off: break;
      }
      expected = kLockWriterWaiting;
      return false;
    }
  }
  void unlock_exclusive() { value -= kLockExclusive; }
};

}  // namespace

TEST_CASE("readers that keep coming do not starve a waiting writer") {
  Word w;
  REQUIRE(w.try_shared());  // reader A in
  std::uint64_t expected = 0;
  CHECK_FALSE(w.try_exclusive(expected));  // writer W waits: flag up
  CHECK((w.value & kLockWriterWaiting) != 0);
  CHECK_FALSE(w.try_shared());  // reader B arrives after the flag: refused
  CHECK(w.value == (kLockWriterWaiting | 1));
  w.unlock_shared();  // A leaves
  CHECK(w.try_exclusive(expected));  // W gets in before B
  CHECK(w.value == kLockExclusive);
  CHECK_FALSE(w.try_shared());  // B still out while W holds it
  w.unlock_exclusive();
  CHECK(w.value == 0);
  CHECK(w.try_shared());  // now B
}

TEST_CASE("two waiting writers both get in, and the flag never outlives them") {
  Word w;
  REQUIRE(w.try_shared());  // a reader holds it
  std::uint64_t e1 = 0, e2 = 0;
  CHECK_FALSE(w.try_exclusive(e1));
  CHECK_FALSE(w.try_exclusive(e2));
  w.unlock_shared();
  CHECK(w.try_exclusive(e1));  // the first swap clears the flag ...
  CHECK_FALSE(w.try_exclusive(e2));  // ... the other writer raises it again
  CHECK(w.value == (kLockExclusive | kLockWriterWaiting));
  CHECK_FALSE(w.try_shared());
  w.unlock_exclusive();  // the other writer's flag stays
  CHECK(w.value == kLockWriterWaiting);
  CHECK(w.try_exclusive(e2));
  w.unlock_exclusive();
  CHECK(w.value == 0);  // nobody waits: no flag left behind
}

TEST_CASE("a new writer defers to a waiting one instead of taking the lock again at once") {
  Word w;
  std::uint64_t local = 0, remote = 0;
  REQUIRE(w.try_exclusive(local, true));  // the lock's own rank holds it
  CHECK_FALSE(w.try_exclusive(remote, true));  // a remote writer waits: flag up
  w.unlock_exclusive();
  CHECK(w.value == kLockWriterWaiting);
  local = 0;
  CHECK_FALSE(w.try_exclusive(local, true));  // the holder's next epoch defers ...
  CHECK(local == 0);
  CHECK(w.value == kLockWriterWaiting);
  CHECK(w.try_exclusive(remote, true));  // ... so the waiting writer gets in
  CHECK_FALSE(w.try_exclusive(local, true));  // and the other now waits its turn
  CHECK(w.value == (kLockExclusive | kLockWriterWaiting));
  w.unlock_exclusive();
  CHECK(w.try_exclusive(local, true));
  // Out of deferrals (window.cc bounds them), a new writer takes a flag alone as before.
  w.unlock_exclusive();
  w.value = kLockWriterWaiting;
  std::uint64_t late = 0;
  CHECK(w.try_exclusive(late, false));
}
