// Point-to-point traffic through MPCPI with content checks: ping-pong and
// ring across the eager limit up to 64 MiB (4 MiB under ThreadSanitizer),
// wildcard receives, the non-overtaking rule under mixed eager/rendezvous
// traffic, and many posted receives. Every rank runs every test case (they
// are collective). Run by p2p_test under lapirun at several rank counts and
// in each variant.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "tests/mpcpi/rank_engine.hpp"
#include "tests/support/sanitizers.hpp"

using namespace lapis::testing;
using mpcpi::Errc;
using mpcpi::Request;
using mpcpi::SendMode;
using mpcpi::Status;

namespace {

std::size_t near_limit(long delta);

// A sanitizer instruments every byte the pattern fill and check touch and
// shadows every memcpy: 64 MiB messages put this test past its time limit
// under ThreadSanitizer and made it the longest of CI's AddressSanitizer
// run (200 s). 4 MiB is still many rendezvous fragments, with the same
// protocol steps and threads. In the default build 16 MiB: 64 MiB made the
// 12 jobs of variants_test's first case 65 s (a 2-rank job 2.3 s, 0.3 at
// 4 MiB) and tested no further step; mpcpi's early-arrival cap, which a
// bigger eager message would reach, is flood_test's.
constexpr std::size_t kLargest = kSanitized ? std::size_t{4} << 20 : std::size_t{16} << 20;

std::vector<std::size_t> sizes_across_eager_limit() {
  return {0, 1, 8, 1000, near_limit(-1), near_limit(0), near_limit(1), std::size_t{65536},
          std::size_t{1} << 20, kLargest};
}

// A size relative to the eager limit, kept testable when the limit is 0 or huge.
std::size_t near_limit(long delta) {
  const long e = static_cast<long>(std::min<std::size_t>(engine().options().eager_limit, 1 << 20));
  return static_cast<std::size_t>(std::max(0L, e + delta));
}

void check_content(const std::vector<std::uint8_t>& buf, int src, std::uint64_t seq,
                   std::size_t bytes) {
  const std::size_t bad = first_mismatch(buf.data(), src, seq, bytes);
  REQUIRE_MESSAGE(bad == bytes, "byte " << bad << " of " << bytes << " from " << src);
}

}  // namespace

TEST_CASE("ping-pong across the eager limit") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const std::uint32_t ctx = 101;
  const int peer = me ^ 1;
  if (peer < n) {
    std::vector<std::uint8_t> in, out;  // reused: see fill_message
    for (std::size_t bytes : sizes_across_eager_limit()) {
      CAPTURE(bytes);
      for (std::uint64_t round = 0; round < 3; ++round) {
        in.assign(bytes + 1, 0xEE);
        if (me % 2 == 0) {
          fill_message(out, me, round, bytes);
          require_ok(engine().send(out.data(), bytes, peer, 7, ctx, SendMode::standard), "send");
          Status st;
          require_ok(engine().recv(in.data(), bytes, peer, 7, ctx, &st), "recv");
          CHECK(st.source == peer);
          CHECK(st.tag == 7);
          CHECK(st.bytes == bytes);
          check_content(in, peer, round, bytes);
        } else {
          Status st;
          require_ok(engine().recv(in.data(), bytes, peer, 7, ctx, &st), "recv");
          CHECK(st.bytes == bytes);
          check_content(in, peer, round, bytes);
          fill_message(out, me, round, bytes);
          require_ok(engine().send(out.data(), bytes, peer, 7, ctx, SendMode::standard), "send");
        }
        CHECK(in[bytes] == 0xEE);  // nothing written past the message
      }
    }
  }
  barrier();
}

TEST_CASE("ring in every send mode, receives posted late and early") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  const std::uint32_t ctx = 102;
  std::vector<std::uint8_t> in, out;  // reused: see fill_message
  for (SendMode mode : {SendMode::standard, SendMode::synchronous}) {
    for (std::size_t bytes : sizes_across_eager_limit()) {
      CAPTURE(bytes);
      CAPTURE(mpcpi::to_string(mode));
      fill_message(out, me, bytes, bytes);
      in.assign(bytes, 0);
      Request* s = nullptr;
      require_ok(engine().isend(out.data(), bytes, right, 3, ctx, mode, s), "isend");
      Status st;
      require_ok(engine().recv(in.data(), bytes, left, 3, ctx, &st), "recv");
      require_ok(engine().wait(s, nullptr), "wait send");
      CHECK(st.source == left);
      check_content(in, left, bytes, bytes);
    }
  }
  // Ready mode needs the receive posted first: post, then agree, then send.
  for (std::size_t bytes : {std::size_t{0}, std::size_t{64}, std::size_t{1} << 20}) {
    fill_message(out, me, 9, bytes);
    in.assign(bytes, 0);
    Request* r = nullptr;
    require_ok(engine().irecv(in.data(), bytes, left, 4, ctx, r), "irecv");
    barrier();
    require_ok(engine().send(out.data(), bytes, right, 4, ctx, SendMode::ready), "rsend");
    require_ok(engine().wait(r, nullptr), "wait recv");
    check_content(in, left, 9, bytes);
  }
  barrier();
}

TEST_CASE("wildcard receives keep per-sender order and report the envelope") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const std::uint32_t ctx = 103;
  constexpr int kPerSender = 12;
  const std::size_t big = near_limit(100);
  if (me != 0) {
    for (int k = 0; k < kPerSender; ++k) {
      const std::size_t bytes = k % 3 == 2 ? big : 16;
      auto out = make_message(me, k, bytes);
      out[0] = static_cast<std::uint8_t>(k);
      require_ok(engine().send(out.data(), bytes, 0, 100 * me + k % 4, ctx, SendMode::standard),
                 "send");
    }
  } else {
    std::map<int, int> next;  // per sender: the k expected next
    std::vector<std::uint8_t> in(big);
    for (int i = 0; i < (n - 1) * kPerSender; ++i) {
      Status st;
      require_ok(engine().recv(in.data(), in.size(), mpcpi::kAnySource, mpcpi::kAnyTag, ctx, &st),
                 "recv any");
      REQUIRE(st.source > 0);
      REQUIRE(st.source < n);
      const int k = in[0];
      CHECK(k == next[st.source]);
      CHECK(st.tag == 100 * st.source + k % 4);
      CHECK(st.bytes == (k % 3 == 2 ? big : 16));
      next[st.source] = k + 1;
    }
  }
  barrier();
  // Any tag from one source, any source with one tag.
  if (me != 0) {
    // Nonblocking: the receiver takes tag 6 first, and a blocking
    // rendezvous send of tag 5 would wait for it forever (unsafe in MPI).
    auto a = make_message(me, 5, 32);
    auto b = make_message(me, 6, 32);
    Request* r[2] = {nullptr, nullptr};
    require_ok(engine().isend(a.data(), 32, 0, 5, ctx, SendMode::standard, r[0]), "isend");
    require_ok(engine().isend(b.data(), 32, 0, 6, ctx, SendMode::standard, r[1]), "isend");
    for (Request* q : r) require_ok(engine().wait(q, nullptr), "wait");
  } else {
    for (int src = 1; src < n; ++src) {
      std::vector<std::uint8_t> in(32);
      Status st;
      require_ok(engine().recv(in.data(), 32, mpcpi::kAnySource, 6, ctx, &st), "recv any src");
      CHECK(st.tag == 6);
      check_content(in, st.source, 6, 32);
      require_ok(engine().recv(in.data(), 32, st.source, mpcpi::kAnyTag, ctx, &st), "recv any tag");
      CHECK(st.tag == 5);
      check_content(in, st.source, 5, 32);
    }
  }
  barrier();
}

TEST_CASE("non-overtaking under mixed eager and rendezvous, all unexpected") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  const std::uint32_t ctx = 104;
  const std::vector<std::size_t> sizes = {4, near_limit(8), 0,  64, 3 * near_limit(0),
                                          8, near_limit(-1), 256 * 1024, 4, 4};
  constexpr int kMessages = 40;

  std::vector<std::vector<std::uint8_t>> out(kMessages);
  std::vector<Request*> sends(kMessages);
  for (int k = 0; k < kMessages; ++k) {
    const std::size_t bytes = sizes[k % sizes.size()];
    out[k] = make_message(me, k, bytes);
    const SendMode mode = k % 7 == 3 ? SendMode::synchronous : SendMode::standard;
    require_ok(engine().isend(out[k].data(), bytes, right, 9, ctx, mode, sends[k]), "isend");
  }
  barrier();  // everything is now sent or announced; nothing is posted yet
  for (int k = 0; k < kMessages; ++k) {
    const std::size_t bytes = sizes[k % sizes.size()];
    std::vector<std::uint8_t> in(bytes);
    Status st;
    // Any tag: a wildcard receive must still see send order.
    require_ok(engine().recv(in.data(), bytes, left, mpcpi::kAnyTag, ctx, &st), "recv");
    CHECK(st.bytes == bytes);
    check_content(in, left, k, bytes);
  }
  for (Request* s : sends) require_ok(engine().wait(s, nullptr), "wait send");
  barrier();

  // Same traffic with the receives posted first (zero-copy landings).
  std::vector<std::vector<std::uint8_t>> in(kMessages);
  std::vector<Request*> recvs(kMessages);
  for (int k = 0; k < kMessages; ++k) {
    in[k].assign(sizes[k % sizes.size()], 0);
    require_ok(engine().irecv(in[k].data(), in[k].size(), left, 9, ctx, recvs[k]), "irecv");
  }
  barrier();
  for (int k = 0; k < kMessages; ++k) {
    require_ok(engine().isend(out[k].data(), out[k].size(), right, 9, ctx, SendMode::standard,
                              sends[k]),
               "isend");
  }
  for (int k = 0; k < kMessages; ++k) {
    require_ok(engine().wait(recvs[k], nullptr), "wait recv");
    check_content(in[k], left, k, in[k].size());
  }
  for (Request* s : sends) require_ok(engine().wait(s, nullptr), "wait send");
  barrier();
}

TEST_CASE("many posted receives with distinct tags, matched in reverse") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  const std::uint32_t ctx = 105;
  constexpr int kTags = 2000;
  std::vector<std::uint32_t> in(kTags, 0);
  std::vector<Request*> recvs(kTags);
  for (int t = 0; t < kTags; ++t)
    require_ok(engine().irecv(&in[t], sizeof in[t], left, t, ctx, recvs[t]), "irecv");
  barrier();
  std::vector<std::uint32_t> out(kTags);
  for (int t = kTags - 1; t >= 0; --t) {
    out[t] = static_cast<std::uint32_t>(t * 3 + me);
    require_ok(engine().send(&out[t], sizeof out[t], right, t, ctx, SendMode::standard), "send");
  }
  for (int t = 0; t < kTags; ++t) {
    Status st;
    require_ok(engine().wait(recvs[t], &st), "wait");
    CHECK(st.tag == t);
    CHECK(in[t] == static_cast<std::uint32_t>(t * 3 + left));
  }
  barrier();
}

TEST_CASE("contexts isolate traffic") {
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const int right = (me + 1) % n;
  const int left = (me + n - 1) % n;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  const std::uint32_t va = 1000 + me;
  const std::uint32_t vb = 2000 + me;
  Request* ra = nullptr;
  // Same source and tag, two contexts; post the second context first.
  require_ok(engine().irecv(&b, sizeof b, left, 1, 107, ra), "irecv b");
  Request* sa = nullptr;
  Request* sb = nullptr;
  require_ok(engine().isend(&va, sizeof va, right, 1, 106, SendMode::standard, sa), "isend a");
  require_ok(engine().isend(&vb, sizeof vb, right, 1, 107, SendMode::standard, sb), "isend b");
  require_ok(engine().recv(&a, sizeof a, left, 1, 106, nullptr), "recv a");
  require_ok(engine().wait(ra, nullptr), "wait b");
  require_ok(engine().wait(sa, nullptr), "wait send a");
  require_ok(engine().wait(sb, nullptr), "wait send b");
  CHECK(a == static_cast<std::uint32_t>(1000 + left));
  CHECK(b == static_cast<std::uint32_t>(2000 + left));
  barrier();
}

TEST_CASE("interrupt mode: data lands while the receiver only watches its buffer") {
  std::int64_t interrupt = 0;
  REQUIRE(context().qenv(lapi::Query::interrupt_mode, interrupt).ok());
  const int me = static_cast<int>(engine().task_id());
  const int n = static_cast<int>(engine().num_tasks());
  const int peer = me ^ 1;
  const std::uint32_t ctx = 108;
  if (interrupt != 0 && peer < n) {
    for (std::size_t bytes : {std::size_t{8}, near_limit(100)}) {
      CAPTURE(bytes);
      std::vector<std::uint8_t> in(bytes, 0);
      auto out = make_message(me, 11, bytes);
      out[bytes - 1] = 0xA5;  // the byte the receiver watches
      Request* r = nullptr;
      require_ok(engine().irecv(in.data(), bytes, peer, 11, ctx, r), "irecv");
      barrier();
      if (me % 2 == 0) {
        require_ok(engine().send(out.data(), bytes, peer, 11, ctx, SendMode::standard), "send");
      }
      // No engine call until the data is there: the progress thread must
      // match the message and, for rendezvous, answer with the CTS.
      const volatile std::uint8_t* last = in.data() + bytes - 1;
      if (me % 2 == 1) {
        spin_until_byte(last, 0xA5);
        auto reply = make_message(me, 11, bytes);
        reply[bytes - 1] = 0xA5;
        require_ok(engine().send(reply.data(), bytes, peer, 11, ctx, SendMode::standard), "reply");
      } else {
        spin_until_byte(last, 0xA5);
      }
      require_ok(engine().wait(r, nullptr), "wait");
      CHECK(first_mismatch(in.data(), peer, 11, bytes - 1) == bytes - 1);
    }
  }
  barrier();
}
