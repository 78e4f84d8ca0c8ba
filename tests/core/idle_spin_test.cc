// IdleSpin (lapi/internal/idle_spin.hpp): when a waiter spins, yields and
// sleeps, and what it learns from its yields, on a clock and a yield the
// test controls.
#include "lapi/internal/idle_spin.hpp"

#include <doctest/doctest.h>

#include <cstdint>

namespace {

// Each test case has its own Os type, so its own learnt (thread_local) spin.
template <int kCase>
struct FakeOs {
  static inline std::int64_t now = 0;
  static inline std::int64_t yield_ns = 1'000;  // what a yield takes
  static inline int yields = 0;
  static std::int64_t now_ns() { return now; }
  static void yield() {
    ++yields;
    now += yield_ns;
  }
};

template <typename Os>
using Spin = lapi::internal::BasicIdleSpin<Os>;

// Idle polls of one wait up to and including the first that yields (each
// takes `poll_ns` of the fake clock).
template <typename Os>
int polls_before_first_yield(bool yield_early, std::int64_t poll_ns) {
  Spin<Os> spin(yield_early);
  const int before = Os::yields;
  int polls = 0;
  while (Os::yields == before) {
    REQUIRE_FALSE(spin.idle());
    Os::now += poll_ns;
    ++polls;
    REQUIRE(polls < 10'000'000);
  }
  return polls;
}

}  // namespace

TEST_CASE("a waiter that yields early spins kSpinPolls, yields kYieldPolls times, then sleeps") {
  using Os = FakeOs<0>;
  Spin<Os> spin(true);
  int polls = 0;
  while (!spin.idle()) ++polls;
  CHECK(Os::yields == Spin<Os>::kYieldPolls);
  CHECK(polls == Spin<Os>::kSpinPolls + Spin<Os>::kYieldPolls);
  // After the sleep it yields again at once, and sleeps after as many yields.
  spin.after_sleep();
  CHECK_FALSE(spin.idle());
  CHECK(Os::yields == Spin<Os>::kYieldPolls + 1);
  // Quiet yields teach nothing here.
  CHECK(Spin<Os>::learnt_spin_ns() == 0);
}

TEST_CASE("quiet yields make the next waits spin longer, up to kMaxSpinNs") {
  using Os = FakeOs<1>;
  CHECK(polls_before_first_yield<Os>(false, 10) == Spin<Os>::kSpinPolls + 1);
  CHECK(Spin<Os>::learnt_spin_ns() == 1'000);  // the first quiet yield
  // Now it spins at least the learnt time (checked every 256 polls) first.
  const int polls = polls_before_first_yield<Os>(false, 10);
  CHECK(polls * 10 >= 1'000);
  CHECK(polls < Spin<Os>::kSpinPolls + 1'000 / 10 + 256);
  CHECK(Spin<Os>::learnt_spin_ns() == 2'000);
  for (int i = 0; i < 20; ++i) (void)polls_before_first_yield<Os>(false, 10);
  CHECK(Spin<Os>::learnt_spin_ns() == Spin<Os>::kMaxSpinNs);
  // A waiter that yields early neither uses nor changes what was learnt.
  CHECK(polls_before_first_yield<Os>(true, 10) == Spin<Os>::kSpinPolls + 1);
  CHECK(Spin<Os>::learnt_spin_ns() == Spin<Os>::kMaxSpinNs);
}

TEST_CASE("a yield that lets another task run drops the learnt spin") {
  using Os = FakeOs<2>;
  for (int i = 0; i < 3; ++i) (void)polls_before_first_yield<Os>(false, 10);
  CHECK(Spin<Os>::learnt_spin_ns() == 4'000);
  Os::yield_ns = Spin<Os>::kQuietYieldNs;  // another task ran meanwhile
  (void)polls_before_first_yield<Os>(false, 10);
  CHECK(Spin<Os>::learnt_spin_ns() == 0);
  CHECK(polls_before_first_yield<Os>(false, 10) == Spin<Os>::kSpinPolls + 1);
}

TEST_CASE("a poll that found something starts the spin over") {
  using Os = FakeOs<3>;
  Spin<Os> spin(true);
  for (int i = 0; i < Spin<Os>::kSpinPolls + 5; ++i) (void)spin.idle();
  CHECK(Os::yields == 5);
  spin.busy();
  for (int i = 0; i < Spin<Os>::kSpinPolls; ++i) REQUIRE_FALSE(spin.idle());
  CHECK(Os::yields == 5);
}
