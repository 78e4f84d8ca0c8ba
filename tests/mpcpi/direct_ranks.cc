// Direct landing (mpcpi/direct.cc) between two tasks: task 1 posts a user
// receive, task 0 waits until it has taken in the announcement and sends.
// Each case checks what MPI promises (data, source, tag, size, truncation,
// cancellation) and, through the engines' statistics, whether the send
// wrote into the receive (DIRECT_EXPECTED=1) or went the usual way (0).

#include <doctest/doctest.h>

#include <cstdlib>
#include <vector>

#include "tests/mpcpi/rank_engine.hpp"

using namespace lapis::testing;
using mpcpi::Errc;
using mpcpi::Request;
using mpcpi::SendMode;
using mpcpi::Status;

namespace {

constexpr std::uint32_t kCtx = 0;

bool direct_expected() {
  const char* v = std::getenv("DIRECT_EXPECTED");
  return v != nullptr && v[0] == '1';
}

std::vector<std::uint8_t> pattern(std::size_t bytes, std::uint8_t seed) {
  std::vector<std::uint8_t> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7);
  return v;
}

// Task 1 posts with post(); task 0 sends with send() once the announcement
// is in (when one is expected), and checks how many sends went direct.
struct Case {
  std::uint64_t direct_before = engine().stats().direct_sent;
  std::uint64_t heard_before = engine().stats().announces_heard;

  // Task 0: until task 1's announcement has been taken in.
  void await_announcement() const {
    if (!direct_expected()) return;
    while (engine().stats().announces_heard == heard_before) require_ok(engine().progress(), "progress");
  }
  std::uint64_t direct_sends() const { return engine().stats().direct_sent - direct_before; }
};

}  // namespace

TEST_CASE("a send matching an announced receive lands in it, with its source, tag and size") {
  Case c;
  barrier();
  if (context().task_id() == 1) {
    std::vector<std::uint8_t> in(64, 0);
    Request* r = nullptr;
    require_ok(engine().irecv(in.data(), in.size(), 0, 5, kCtx, r, true), "irecv");
    Status st;
    require_ok(engine().wait(r, &st), "wait");
    CHECK(st.source == 0);
    CHECK(st.tag == 5);
    CHECK(st.bytes == 40);
    CHECK(std::vector<std::uint8_t>(in.begin(), in.begin() + 40) == pattern(40, 3));
    CHECK(in[40] == 0);  // nothing beyond the message
    CHECK((engine().stats().announced > 0) == direct_expected());
  } else {
    c.await_announcement();
    const auto out = pattern(40, 3);
    require_ok(engine().send(out.data(), out.size(), 1, 5, kCtx, SendMode::standard), "send");
    CHECK(c.direct_sends() == (direct_expected() ? 1u : 0u));
  }
  barrier();
}

TEST_CASE("an announced receive for any tag gets the sender's tag; nonblocking, synchronous and ready sends") {
  for (const SendMode mode : {SendMode::standard, SendMode::synchronous, SendMode::ready}) {
    CAPTURE(static_cast<int>(mode));
    Case c;
    barrier();
    if (context().task_id() == 1) {
      std::vector<std::uint8_t> in(32, 0);
      Request* r = nullptr;
      require_ok(engine().irecv(in.data(), in.size(), 0, mpcpi::kAnyTag, kCtx, r, true), "irecv");
      barrier();  // posted before the ready send
      Status st;
      require_ok(engine().wait(r, &st), "wait");
      CHECK(st.tag == 9);
      CHECK(st.bytes == 32);
      CHECK(in == pattern(32, 11));
    } else {
      barrier();
      c.await_announcement();
      const auto out = pattern(32, 11);
      Request* s = nullptr;
      require_ok(engine().isend(out.data(), out.size(), 1, 9, kCtx, mode, s), "isend");
      require_ok(engine().wait(s, nullptr), "wait send");
      CHECK(c.direct_sends() == (direct_expected() ? 1u : 0u));
    }
    barrier();
  }
}

TEST_CASE("a message of another tag first: the announcement lapses and matching stays in order") {
  Case c;
  barrier();
  if (context().task_id() == 1) {
    std::vector<std::uint8_t> five(16, 0), six(16, 0);
    Request* r = nullptr;
    require_ok(engine().irecv(five.data(), five.size(), 0, 5, kCtx, r, true), "irecv");
    Status st;
    require_ok(engine().wait(r, &st), "wait");
    CHECK(st.tag == 5);
    CHECK(five == pattern(16, 50));
    require_ok(engine().recv(six.data(), six.size(), 0, 6, kCtx, &st), "recv");
    CHECK(six == pattern(16, 60));
  } else {
    c.await_announcement();
    const auto a = pattern(16, 60), b = pattern(16, 50);
    require_ok(engine().send(a.data(), a.size(), 1, 6, kCtx, SendMode::standard), "send 6");
    require_ok(engine().send(b.data(), b.size(), 1, 5, kCtx, SendMode::standard), "send 5");
    CHECK(c.direct_sends() == 0);  // tag 6 took the announced sequence number
  }
  barrier();
}

TEST_CASE("a message too large for the announced buffer is truncated as usual") {
  Case c;
  barrier();
  if (context().task_id() == 1) {
    std::vector<std::uint8_t> in(16, 0);
    Request* r = nullptr;
    require_ok(engine().irecv(in.data(), in.size(), 0, 5, kCtx, r, true), "irecv");
    Status st;
    CHECK(engine().wait(r, &st) == Errc::truncate);
    CHECK(st.message_bytes == 100);
    CHECK(in == pattern(16, 1));
  } else {
    c.await_announcement();
    const auto out = pattern(100, 1);
    require_ok(engine().send(out.data(), out.size(), 1, 5, kCtx, SendMode::standard), "send");
    CHECK(c.direct_sends() == 0);
  }
  barrier();
}

TEST_CASE("an announced receive cancelled before the send is cancelled, and its buffer left alone") {
  Case c;
  barrier();
  if (context().task_id() == 1) {
    std::vector<std::uint8_t> in(48, 0xEE);
    Request* r = nullptr;
    require_ok(engine().irecv(in.data(), in.size(), 0, 5, kCtx, r, true), "irecv");
    barrier();  // task 0 has taken in the announcement
    require_ok(engine().cancel(r), "cancel");
    Status st;
    require_ok(engine().wait(r, &st), "wait");
    CHECK(st.cancelled);
    barrier();  // now task 0 sends
    std::vector<std::uint8_t> other(48, 0);
    require_ok(engine().recv(other.data(), other.size(), 0, 5, kCtx, &st), "recv");
    CHECK(other == pattern(48, 21));
    CHECK(in == std::vector<std::uint8_t>(48, 0xEE));
  } else {
    c.await_announcement();
    barrier();
    barrier();
    const auto out = pattern(48, 21);
    require_ok(engine().send(out.data(), out.size(), 1, 5, kCtx, SendMode::standard), "send");
    CHECK(c.direct_sends() == 0);
  }
  barrier();
}

// Only where the data arrives without engine calls (interrupt mode): task 1
// watches its buffer, then cancels. The sender wrote already, so the cancel
// fails and the receive completes with the message, whether the landed
// message or the withdrawal is handled first.
TEST_CASE("an announced receive cancelled after the sender wrote completes with the data") {
  if (!direct_expected()) return;
  Case c;
  barrier();
  if (context().task_id() == 1) {
    std::vector<std::uint8_t> in(24, 0);
    Request* r = nullptr;
    require_ok(engine().irecv(in.data(), in.size(), 0, 5, kCtx, r, true), "irecv");
    const auto want = pattern(24, 77);
    spin_until_byte(in.data() + 23, want[23]);
    require_ok(engine().cancel(r), "cancel");
    Status st;
    require_ok(engine().wait(r, &st), "wait");
    CHECK(!st.cancelled);
    CHECK(st.bytes == 24);
    CHECK(in == want);
  } else {
    c.await_announcement();
    const auto out = pattern(24, 77);
    require_ok(engine().send(out.data(), out.size(), 1, 5, kCtx, SendMode::standard), "send");
    CHECK(c.direct_sends() == 1);
  }
  barrier();
}

// A blocking receive's announcement is used by a sender whose own progress
// thread sleeps (split copy's answer would have to wake it): task 0 stays
// out of the library until it does.
TEST_CASE("a blocking receive of 16 KiB or more is announced; a smaller one is not") {
  for (const std::size_t bytes : {std::size_t{20000}, std::size_t{100}}) {
    CAPTURE(bytes);
    const bool announced = direct_expected() && bytes >= 16384;
    Case c;
    const std::uint64_t announced_before = engine().stats().announced;
    barrier();
    if (context().task_id() == 1) {
      std::vector<std::uint8_t> in(bytes + 8, 0);
      Status st;
      require_ok(engine().recv(in.data(), in.size(), 0, 5, kCtx, &st), "recv");
      CHECK(st.bytes == bytes);
      CHECK(std::vector<std::uint8_t>(in.begin(), in.begin() + static_cast<long>(bytes)) == pattern(bytes, 9));
      CHECK(engine().stats().announced - announced_before == (announced ? 1u : 0u));
    } else {
      if (announced) {
        c.await_announcement();
        while (!context().sleeping()) {
        }
      }
      const auto out = pattern(bytes, 9);
      require_ok(engine().send(out.data(), out.size(), 1, 5, kCtx, SendMode::standard), "send");
      CHECK(c.direct_sends() == (announced ? 1u : 0u));
    }
    barrier();
  }
}
