// Send modes and the less common operations through MPCPI: synchronous
// completion only after the match, ready-mode errors, buffered mode with a
// too-small buffer, truncation, probe/mprobe, cancel, self and zero-byte
// messages, and argument checking. Pairs of ranks (0,1), (2,3), ... do the
// work; an odd last rank only joins the barriers. Run by modes_test.

#include <doctest/doctest.h>

#include <vector>

#include "tests/mpcpi/rank_engine.hpp"

using namespace lapis::testing;
using mpcpi::Errc;
using mpcpi::Request;
using mpcpi::SendMode;
using mpcpi::Status;

namespace {

int me() { return static_cast<int>(engine().task_id()); }
int peer() { return me() ^ 1; }
bool paired() { return peer() < static_cast<int>(engine().num_tasks()); }
bool sender() { return me() % 2 == 0; }

std::size_t rndv_size() {
  return std::min<std::size_t>(engine().options().eager_limit, 1 << 20) + 1000;
}

// With LAPIS_EAGER_LIMIT=0 even 4 bytes go by rendezvous (and can be cancelled).
bool eager_four_bytes() { return engine().options().eager_limit > 4; }

// Drives progress for a while and reports whether `r` completed.
bool completes_soon(Request* r, int polls) {
  for (int i = 0; i < polls; ++i) {
    bool done = false;
    Status st;
    require_ok(engine().peek(r, done, &st), "peek");
    if (done) return true;
    require_ok(engine().progress(), "progress");
  }
  return false;
}

}  // namespace

TEST_CASE("synchronous send completes only after the receive matched") {
  const std::uint32_t ctx = 201;
  for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, rndv_size()}) {
    CAPTURE(bytes);
    auto out = make_message(me(), 1, bytes);
    std::vector<std::uint8_t> in(bytes);
    Request* s = nullptr;
    if (paired() && sender()) {
      require_ok(engine().isend(out.data(), bytes, peer(), 1, ctx, SendMode::synchronous, s),
                 "issend");
      CHECK_FALSE(completes_soon(s, 2000));  // the receiver has not posted anything
    }
    barrier();
    if (paired() && !sender()) {
      Status st;
      require_ok(engine().recv(in.data(), bytes, peer(), 1, ctx, &st), "recv");
      CHECK(first_mismatch(in.data(), peer(), 1, bytes) == bytes);
    }
    if (s != nullptr) require_ok(engine().wait(s, nullptr), "wait ssend");
    barrier();
  }
}

TEST_CASE("isend with done_now: a send that left at once needs no request") {
  const std::uint32_t ctx = 209;
  constexpr int kSmall = 10;
  const std::size_t big = rndv_size();
  if (paired() && sender()) {
    int done_at_once = 0;
    for (int i = 0; i < kSmall; ++i) {
      auto out = make_message(me(), i, 8);
      Request* r = nullptr;
      bool done_now = false;
      require_ok(engine().isend(out.data(), 8, peer(), 1, ctx, SendMode::standard, r, &done_now),
                 "isend");
      CHECK(done_now == (r == nullptr));
      if (done_now) {
        ++done_at_once;
      } else {
        require_ok(engine().wait(r, nullptr), "wait");
      }
    }
    // An eager send to an idle peer leaves inside the call (a full transport
    // queue may delay the odd one).
    if (eager_four_bytes()) CHECK(done_at_once > 0);
  } else if (paired()) {
    std::vector<std::uint8_t> in(8);
    for (int i = 0; i < kSmall; ++i) {
      require_ok(engine().recv(in.data(), 8, peer(), 1, ctx, nullptr), "recv");
      CHECK(first_mismatch(in.data(), peer(), i, 8) == 8);
    }
  }
  // Synchronous and rendezvous sends wait for the receiver: always a request
  // while it has not posted. The receiver posts only after the barrier that
  // follows the isend: with the receive already posted, interrupt mode's
  // progress thread can finish the whole exchange before isend returns, and
  // done_now is then rightly true.
  auto out = make_message(me(), 99, big);
  std::vector<std::uint8_t> in(big);
  for (SendMode mode : {SendMode::synchronous, SendMode::standard}) {
    const std::size_t bytes = mode == SendMode::standard ? big : 8;
    CAPTURE(bytes);
    Request* r = nullptr;
    if (paired() && sender()) {
      bool done_now = true;
      require_ok(engine().isend(out.data(), bytes, peer(), 2, ctx, mode, r, &done_now), "isend");
      CHECK_FALSE(done_now);
      CHECK(r != nullptr);
    }
    barrier();
    if (r != nullptr) {
      require_ok(engine().wait(r, nullptr), "wait");
    } else if (paired() && !sender()) {
      require_ok(engine().recv(in.data(), bytes, peer(), 2, ctx, nullptr), "recv");
      CHECK(first_mismatch(in.data(), peer(), 99, bytes) == bytes);
    }
  }
  barrier();
}

TEST_CASE("ready send without a posted receive fails at the sender") {
  const std::uint32_t ctx = 202;
  for (std::size_t bytes : {std::size_t{0}, std::size_t{100}, rndv_size()}) {
    CAPTURE(bytes);
    auto out = make_message(me(), 2, bytes);
    if (paired() && sender()) {
      Status st;
      Request* r = nullptr;
      require_ok(engine().isend(out.data(), bytes, peer(), 2, ctx, SendMode::ready, r), "irsend");
      CHECK(engine().wait(r, &st) == Errc::ready_no_match);
      CHECK(st.error == Errc::ready_no_match);
    }
    barrier();
    if (paired() && !sender()) {  // the erroneous message was dropped, not queued
      bool found = true;
      require_ok(engine().iprobe(peer(), mpcpi::kAnyTag, ctx, found, nullptr), "iprobe");
      CHECK_FALSE(found);
    }
    barrier();
  }
}

TEST_CASE("buffered mode: copies, refuses what does not fit, detach waits") {
  const std::uint32_t ctx = 203;
  if (paired() && sender()) {
    const std::size_t big = rndv_size();
    std::vector<std::uint8_t> attach(2 * (100 + mpcpi::kBsendOverhead) + (big + mpcpi::kBsendOverhead));
    require_ok(engine().buffer_attach(attach.data(), attach.size()), "attach");
    CHECK(engine().buffer_attach(attach.data(), attach.size()) == Errc::buffer);
    // Larger than the whole buffer: refused.
    std::vector<std::uint8_t> huge(attach.size());
    CHECK(engine().send(huge.data(), huge.size(), peer(), 9, ctx, SendMode::buffered) == Errc::buffer);
    for (int k = 0; k < 2; ++k) {
      auto out = make_message(me(), k, 100);
      require_ok(engine().send(out.data(), 100, peer(), k, ctx, SendMode::buffered), "bsend");
      out.assign(100, 0);  // the message was copied: reusing the buffer is safe
    }
    // A rendezvous-size message stays in the buffer until the receiver
    // matches it (after the barrier), so a second one cannot fit meanwhile.
    // Under an eager limit above its size (LAPIS_EAGER_LIMIT=1g) it leaves
    // once it has landed, and a send that finds the buffer full polls for
    // that: the second one may fit then, so it is not tried.
    auto large = make_message(me(), 2, big);
    require_ok(engine().send(large.data(), big, peer(), 2, ctx, SendMode::buffered), "bsend big");
    large.assign(big, 0);
    if (big > engine().options().eager_limit) {
      CHECK(engine().send(large.data(), big, peer(), 3, ctx, SendMode::buffered) == Errc::buffer);
    }
    barrier();  // now the receiver receives
    void* buf = nullptr;
    std::size_t size = 0;
    require_ok(engine().buffer_detach(buf, size), "detach");
    CHECK(buf == attach.data());
    CHECK(size == attach.size());
    std::uint8_t one = 1;
    CHECK(engine().send(&one, 1, peer(), 3, ctx, SendMode::buffered) == Errc::buffer);
  } else {
    barrier();
    if (paired()) {
      for (int k = 0; k < 3; ++k) {
        const std::size_t bytes = k < 2 ? 100 : rndv_size();
        std::vector<std::uint8_t> in(bytes);
        require_ok(engine().recv(in.data(), bytes, peer(), k, ctx, nullptr), "recv");
        CHECK(first_mismatch(in.data(), peer(), k, bytes) == bytes);
      }
    }
  }
  barrier();
}

TEST_CASE("truncation fills the buffer, reports the error and writes nothing past it") {
  const std::uint32_t ctx = 204;
  for (std::size_t bytes : {std::size_t{100}, rndv_size()}) {
    for (bool self : {false, true}) {
      CAPTURE(bytes);
      CAPTURE(self);
      const int dest = self ? me() : peer();
      if (!self && !paired()) continue;
      auto out = make_message(me(), 4, bytes);
      std::vector<std::uint8_t> in(bytes, 0xCC);
      const std::size_t cap = bytes / 2;
      Request* s = nullptr;
      if (self || sender())
        require_ok(engine().isend(out.data(), bytes, dest, 4, ctx, SendMode::standard, s), "isend");
      if (self || !sender()) {
        Status st;
        CHECK(engine().recv(in.data(), cap, dest, 4, ctx, &st) == Errc::truncate);
        CHECK(st.error == Errc::truncate);
        CHECK(st.bytes == cap);
        CHECK(st.message_bytes == bytes);
        CHECK(first_mismatch(in.data(), dest, 4, cap) == cap);
        CHECK(in[cap] == 0xCC);
        CHECK(in[bytes - 1] == 0xCC);
      }
      if (s != nullptr) require_ok(engine().wait(s, nullptr), "wait send");
    }
  }
  barrier();
}

TEST_CASE("probe, iprobe and matched probe") {
  const std::uint32_t ctx = 205;
  const std::size_t small = 300;
  const std::size_t big = rndv_size();
  if (paired() && sender()) {
    auto a = make_message(me(), 5, small);
    auto b = make_message(me(), 6, big);
    Request* ra = nullptr;
    Request* rb = nullptr;
    require_ok(engine().isend(a.data(), small, peer(), 5, ctx, SendMode::standard, ra), "isend a");
    require_ok(engine().isend(b.data(), big, peer(), 6, ctx, SendMode::standard, rb), "isend b");
    require_ok(engine().wait(ra, nullptr), "wait a");
    require_ok(engine().wait(rb, nullptr), "wait b");
  } else if (paired()) {
    Status st;
    require_ok(engine().probe(mpcpi::kAnySource, 6, ctx, &st), "probe");
    CHECK(st.source == peer());
    CHECK(st.tag == 6);
    CHECK(st.bytes == big);
    // Earliest first: any tag from the peer is the tag-5 message.
    mpcpi::Message* first = nullptr;
    require_ok(engine().improbe(peer(), mpcpi::kAnyTag, ctx, first, &st), "improbe");
    REQUIRE(first != nullptr);
    CHECK(st.tag == 5);
    CHECK(st.bytes == small);
    // A matched message has left matching: probing again finds the other one.
    mpcpi::Message* second = nullptr;
    require_ok(engine().mprobe(peer(), mpcpi::kAnyTag, ctx, second, &st), "mprobe");
    REQUIRE(second != nullptr);
    CHECK(st.tag == 6);
    std::vector<std::uint8_t> in(big);
    Request* r = nullptr;
    require_ok(engine().imrecv(second, in.data(), big, r), "imrecv second");
    require_ok(engine().wait(r, &st), "wait second");
    CHECK(st.tag == 6);
    CHECK(first_mismatch(in.data(), peer(), 6, big) == big);
    require_ok(engine().imrecv(first, in.data(), small, r), "imrecv first");
    require_ok(engine().wait(r, &st), "wait first");
    CHECK(st.tag == 5);
    CHECK(first_mismatch(in.data(), peer(), 5, small) == small);
    bool found = true;
    require_ok(engine().iprobe(peer(), mpcpi::kAnyTag, ctx, found, nullptr), "iprobe");
    CHECK_FALSE(found);
    CHECK(engine().imrecv(nullptr, in.data(), 1, r) == Errc::invalid_request);
  }
  barrier();
}

TEST_CASE("cancel: posted receives, unmatched rendezvous sends, not eager sends") {
  const std::uint32_t ctx = 206;
  // A posted receive nobody sends to.
  std::uint32_t x = 0;
  Request* r = nullptr;
  require_ok(engine().irecv(&x, sizeof x, mpcpi::kAnySource, 1, ctx, r), "irecv");
  require_ok(engine().cancel(r), "cancel");
  Status st;
  require_ok(engine().wait(r, &st), "wait cancelled");
  CHECK(st.cancelled);

  // A self rendezvous send nobody receives.
  const std::size_t big = rndv_size();
  auto out = make_message(me(), 7, big);
  Request* s = nullptr;
  require_ok(engine().isend(out.data(), big, me(), 2, ctx, SendMode::synchronous, s), "isend self");
  require_ok(engine().cancel(s), "cancel self send");
  require_ok(engine().wait(s, &st), "wait self send");
  CHECK(st.cancelled);

  // A remote rendezvous send the receiver has seen but not matched.
  if (paired() && sender()) {
    // Synchronous: a request-to-send whatever the eager limit.
    require_ok(engine().isend(out.data(), big, peer(), 3, ctx, SendMode::synchronous, s), "isend");
  }
  if (paired() && !sender()) {
    require_ok(engine().probe(peer(), 3, ctx, &st), "probe");  // the RTS is here, unmatched
  }
  barrier();
  if (paired() && sender()) {
    require_ok(engine().cancel(s), "cancel remote send");
    require_ok(engine().wait(s, &st), "wait remote send");
    CHECK(st.cancelled);
    // An eager send is already delivered: cancel has no effect.
    std::uint32_t v = 42;
    require_ok(engine().isend(&v, sizeof v, peer(), 4, ctx, SendMode::standard, s), "isend eager");
    require_ok(engine().cancel(s), "cancel eager");
    require_ok(engine().wait(s, &st), "wait eager");
    if (eager_four_bytes()) CHECK_FALSE(st.cancelled);
  }
  barrier();  // the cancel reply is answered while the receiver waits here
  if (paired() && !sender()) {
    bool found = true;
    require_ok(engine().iprobe(peer(), 3, ctx, found, nullptr), "iprobe withdrawn");
    CHECK_FALSE(found);
    if (eager_four_bytes()) {
      std::uint32_t v = 0;
      require_ok(engine().recv(&v, sizeof v, peer(), 4, ctx, nullptr), "recv eager");
      CHECK(v == 42);
    }
  }
  barrier();
}

TEST_CASE("self and zero-byte messages in every mode") {
  const std::uint32_t ctx = 207;
  for (std::size_t bytes : {std::size_t{0}, std::size_t{16}, rndv_size()}) {
    for (SendMode mode : {SendMode::standard, SendMode::synchronous}) {
      CAPTURE(bytes);
      auto out = make_message(me(), 8, bytes);
      std::vector<std::uint8_t> in(bytes);
      Request* s = nullptr;
      require_ok(engine().isend(bytes ? out.data() : nullptr, bytes, me(), 8, ctx, mode, s), "isend");
      Status st;
      require_ok(engine().recv(bytes ? in.data() : nullptr, bytes, me(), 8, ctx, &st), "recv");
      require_ok(engine().wait(s, nullptr), "wait");
      CHECK(st.source == me());
      CHECK(st.bytes == bytes);
      CHECK(first_mismatch(in.data(), me(), 8, bytes) == bytes);
    }
  }
  // Ready to self: error without a posted receive, fine with one.
  std::uint32_t v = 7;
  std::uint32_t got = 0;
  CHECK(engine().send(&v, sizeof v, me(), 9, ctx, SendMode::ready) == Errc::ready_no_match);
  Request* r = nullptr;
  require_ok(engine().irecv(&got, sizeof got, me(), 9, ctx, r), "irecv");
  require_ok(engine().send(&v, sizeof v, me(), 9, ctx, SendMode::ready), "rsend self");
  require_ok(engine().wait(r, nullptr), "wait");
  CHECK(got == 7);
  // Zero bytes with a null buffer to the peer.
  if (paired()) {
    if (sender()) {
      require_ok(engine().send(nullptr, 0, peer(), 10, ctx, SendMode::standard), "send 0");
    } else {
      Status st;
      require_ok(engine().recv(nullptr, 0, peer(), 10, ctx, &st), "recv 0");
      CHECK(st.bytes == 0);
    }
  }
  barrier();
}

TEST_CASE("bad arguments are refused with a code and a message") {
  const int n = static_cast<int>(engine().num_tasks());
  std::uint32_t v = 0;
  Request* r = nullptr;
  CHECK(engine().isend(&v, 4, n, 0, 1, SendMode::standard, r) == Errc::invalid_rank);
  CHECK(std::string(mpcpi::last_error_detail()).find("dest") != std::string::npos);
  CHECK(engine().isend(&v, 4, -1, 0, 1, SendMode::standard, r) == Errc::invalid_rank);
  CHECK(engine().isend(&v, 4, 0, -5, 1, SendMode::standard, r) == Errc::invalid_tag);
  CHECK(engine().isend(&v, 4, 0, mpcpi::kAnyTag, 1, SendMode::standard, r) == Errc::invalid_tag);
  CHECK(engine().isend(nullptr, 4, 0, 0, 1, SendMode::standard, r) == Errc::invalid_count);
  CHECK(engine().isend(&v, 4, 0, 0, 1, static_cast<SendMode>(9), r) == Errc::invalid_arg);
  bool done_now = true;  // a refused isend reports nothing done and no request
  CHECK(engine().isend(&v, 4, n, 0, 1, SendMode::standard, r, &done_now) == Errc::invalid_rank);
  CHECK_FALSE(done_now);
  CHECK(engine().irecv(&v, 4, n + 3, 0, 1, r) == Errc::invalid_rank);
  CHECK(engine().irecv(&v, 4, 0, -7, 1, r) == Errc::invalid_tag);
  CHECK(engine().irecv(nullptr, 4, 0, 0, 1, r) == Errc::invalid_count);
  CHECK(r == nullptr);
  bool done = false;
  CHECK(engine().test(nullptr, done, nullptr) == Errc::invalid_request);
  CHECK(engine().wait(nullptr, nullptr) == Errc::invalid_request);
  CHECK(engine().wait_in_place(nullptr).error == Errc::invalid_request);
  engine().release_done(nullptr);  // nothing to release
  CHECK(engine().cancel(nullptr) == Errc::invalid_request);
  void* buf = nullptr;
  std::size_t size = 1;
  require_ok(engine().buffer_detach(buf, size), "detach with nothing attached");
  CHECK(buf == nullptr);
  CHECK(size == 0);
  CHECK(engine().send(&v, 4, 0, 0, 1, SendMode::buffered) == Errc::buffer);
  barrier();
}
