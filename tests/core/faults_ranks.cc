// Bad input is refused with a code and a message naming the argument; a
// peer's bad requests are refused at the target, counted and reported back.

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "lapi/testing.hpp"
#include "tests/core/rank_context.hpp"
#include "tests/core/remote_errors.hpp"

using namespace lapis::testing;

namespace {

void expect_error(lapi::Status s, lapi::Errc code, const char* needle) {
  CHECK(s.code() == code);
  const std::string msg = s.message();
  INFO(msg);
  CHECK(msg.find(needle) != std::string::npos);
}

std::vector<unsigned char> g_sink(1 << 20);
lapi::Landing to_sink(lapi::Context&, const lapi::AmHeaderInfo& info) {
  return {info.data_len ? g_sink.data() : nullptr, nullptr, nullptr, nullptr};
}

Reported g_reported;

}  // namespace

TEST_CASE("local argument errors name the argument") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  int x = 0;
  std::int64_t max_uhdr = 0;
  LAPI_OK(ctx.qenv(lapi::Query::max_uhdr_size, max_uhdr));
  std::vector<char> big(static_cast<std::size_t>(max_uhdr) + 1);

  expect_error(ctx.amsend(n, 1, nullptr, 0, nullptr, 0), lapi::Errc::tgt, "tgt=");
  expect_error(ctx.amsend(0, 0, nullptr, 0, nullptr, 0), lapi::Errc::hdr_hndlr_null, "handler=0");
  expect_error(ctx.amsend(0, lapi::kMaxUserHandlers, nullptr, 0, nullptr, 0), lapi::Errc::hdr_hndlr_null, "handler=");
  expect_error(ctx.amsend(0, 1, nullptr, 4, nullptr, 0), lapi::Errc::uhdr_null, "uhdr");
  expect_error(ctx.amsend(0, 1, big.data(), big.size(), nullptr, 0), lapi::Errc::uhdr_len, "uhdr_len=");
  expect_error(ctx.amsend(0, 1, nullptr, 0, nullptr, 8), lapi::Errc::org_addr_null, "udata");
  expect_error(ctx.put(n + 3, 4, 64, &x), lapi::Errc::tgt, "tgt=");
  expect_error(ctx.put(0, 4, 0, &x), lapi::Errc::tgt_addr_null, "tgt_addr");
  expect_error(ctx.put(0, 4, 64, nullptr), lapi::Errc::org_addr_null, "org_addr");
  expect_error(ctx.get(0, 4, 64, nullptr), lapi::Errc::org_addr_null, "org_addr");
  expect_error(ctx.rmw64(static_cast<lapi::RmwOp>(9), 0, 64, 1, 0, nullptr, nullptr), lapi::Errc::rmw_op, "op=");
  expect_error(ctx.rmw64(lapi::RmwOp::swap, 0, 0, 1, 0, nullptr, nullptr), lapi::Errc::tgt_var_null, "tgt_var");
  expect_error(ctx.rmw64(lapi::RmwOp::swap, 0, 12, 1, 0, nullptr, nullptr), lapi::Errc::tgt_var_null, "aligned");
  lapi::Counter c;
  expect_error(ctx.waitcntr(c, -1), lapi::Errc::cntr_val, "val=");
  expect_error(ctx.register_handler(0, to_sink), lapi::Errc::addr_hndl_range, "id=0");
  expect_error(ctx.register_handler(3, nullptr), lapi::Errc::hdr_hndlr_null, "handler");
  expect_error(ctx.unregister_handler(0), lapi::Errc::addr_hndl_range, "id=0");
  expect_error(ctx.unregister_handler(lapi::kMaxUserHandlers), lapi::Errc::addr_hndl_range, "id=");
  expect_error(ctx.unregister_counter(c), lapi::Errc::no_cntr_reg, "not registered");
  std::int64_t v = 0;
  expect_error(ctx.qenv(static_cast<lapi::Query>(77), v), lapi::Errc::query_type, "query=77");
  expect_error(ctx.senv(lapi::Query::num_tasks, 3), lapi::Errc::query_type, "read-only");
  expect_error(ctx.senv(lapi::Query::interrupt_mode, 5), lapi::Errc::set_val, "INTERRUPT_SET=5");
  expect_error(ctx.senv(lapi::Query::completion_policy, 7), lapi::Errc::set_val, "completion_policy=7");
  expect_error(ctx.free_registered(&x), lapi::Errc::org_addr_null, "not a");
  // Nothing above reached a peer.
  CHECK(ctx.fault_stats().reported_to_me == 0);
  LAPI_OK(ctx.barrier());
}

TEST_CASE("a target refuses bad requests and reports them to the origin") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const lapi::TaskId peer = (me + 1) % ctx.num_tasks();
  LAPI_OK(ctx.register_handler(1, to_sink));
  ctx.set_remote_error_handler(on_remote_error, &g_reported);
  int unregistered_here = 0;
  const auto addrs = exchange(ctx, reinterpret_cast<std::uint64_t>(&unregistered_here));
  // Snapshot before the barrier: peers send their bad requests only after it.
  const auto refused_before = ctx.fault_stats().refused_here;
  LAPI_OK(ctx.barrier());

  SUBCASE("unknown handler id, eager and rendezvous") {
    for (std::size_t len : {std::size_t{8}, std::size_t{1} << 20}) {
      lapi::Counter done;
      std::vector<unsigned char> data(len, 1);
      LAPI_OK(ctx.amsend(peer, 99, nullptr, 0, data.data(), len, {{}, nullptr, &done}));
      expect_error(ctx.waitcntr(done, 1), lapi::Errc::no_callback_reg, "refused");
    }
  }
  SUBCASE("a header handler refuses the message") {
    LAPI_OK(ctx.register_handler(9, [](lapi::Context&, const lapi::AmHeaderInfo&) {
      lapi::Landing l;
      l.refuse = static_cast<int>(lapi::Errc::data_len);
      return l;
    }));
    LAPI_OK(ctx.barrier());
    lapi::Counter done;
    const int before = g_reported.calls.load();
    int payload = 3;
    LAPI_OK(ctx.amsend(peer, 9, nullptr, 0, &payload, sizeof payload, {{}, nullptr, &done}));
    expect_error(ctx.waitcntr(done, 1), lapi::Errc::data_len, "refused");
    CHECK(g_reported.calls.load() == before + 1);
    CHECK(g_reported.last_code.load() == static_cast<int>(lapi::Errc::data_len));
  }
  SUBCASE("target counter the target never handed out") {
    lapi::Counter done;
    LAPI_OK(ctx.amsend(peer, 1, nullptr, 0, nullptr, 0, {lapi::RemoteCounter{0x12345678}, nullptr, &done}));
    expect_error(ctx.waitcntr(done, 1), lapi::Errc::no_cntr_reg, "refused");
  }
  SUBCASE("put, get and rmw to unregistered memory") {
    int v = 5;
    expect_error(ctx.put(peer, sizeof v, addrs[peer], &v), lapi::Errc::not_registered, "no registered memory");
    expect_error(ctx.get(peer, sizeof v, addrs[peer], &v), lapi::Errc::not_registered, "no registered memory");
    expect_error(ctx.rmw32(lapi::RmwOp::fetch_and_add, peer, addrs[peer], 1, 0, nullptr, nullptr),
                 lapi::Errc::not_registered, "no registered memory");
  }
  // Everyone has been refused by its peer; wait until that is visible here
  // too, then check a normal message still goes through.
  LAPI_OK(ctx.gfence());
  CHECK(ctx.fault_stats().refused_here > refused_before);
  CHECK(unregistered_here == 0);
  lapi::Counter ok;
  int payload = 7;
  LAPI_OK(ctx.amsend(peer, 1, nullptr, 0, &payload, sizeof payload, {{}, nullptr, &ok}));
  LAPI_OK(ctx.waitcntr(ok, 1));
  LAPI_OK(ctx.barrier());
}

TEST_CASE("malformed and forged protocol messages are refused, not executed") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const lapi::TaskId peer = (me + 1) % ctx.num_tasks();
  LAPI_OK(ctx.register_handler(1, to_sink));
  const auto before = ctx.fault_stats().refused_here;
  LAPI_OK(ctx.barrier());

  struct Raw {
    unsigned id;
    std::vector<unsigned char> header;
  };
  auto words = [](std::initializer_list<std::uint64_t> ws) {
    std::vector<unsigned char> b;
    for (auto w : ws) {
      const auto* p = reinterpret_cast<const unsigned char*>(&w);
      b.insert(b.end(), p, p + 8);
    }
    return b;
  };
  const std::uint64_t src = me;
  const std::vector<Raw> bad = {
      {1, {1, 2, 3}},                                       // amsend: truncated
      {1, words({src | (1ull << 32) | (0xF0ull << 48)})},   // amsend: unknown flags
      {1, words({src | (1ull << 32) | (1ull << 48)})},      // amsend: counter flag, no counter
      {1, words({999 | (1ull << 32)})},                     // amsend: bogus source task
      {1, words({src | (200ull << 32)})},                   // amsend: unregistered handler
      {2, words({src | (1ull << 32), 0xdead, 0})},          // counter update: bad counter
      {2, {9, 9}},                                          // counter update: truncated
      {3, words({src, 0xbadc00c1e})},                       // completion ack: forged cookie
      {9, words({src | (77ull << 32), 1})},                 // barrier: round out of range
      {10, words({src, 12345, 1})},                         // address_init: wrong round
  };
  for (const Raw& r : bad) {
    CAPTURE(r.id);
    LAPI_OK(lapi::testing::send_raw(ctx, peer, r.id, r.header.data(), r.header.size(), nullptr, 0));
  }
  // Packed Amsends (id 13) carry their frame in the data, not the header.
  const std::vector<std::vector<unsigned char>> bad_packed = {
      {1, 2, 3},                                              // truncated frame
      words({src | (1ull << 32) | ((200ull << 8) << 48)}),    // user header past the end
      words({src | (1ull << 32) | ((0x04ull | 8 << 8) << 48), 0}),  // unknown flag
  };
  for (const auto& p : bad_packed) {
    LAPI_OK(lapi::testing::send_raw(ctx, peer, 13, p.data(), 0, p.data(), p.size()));
  }
  const auto framed = words({src | (1ull << 32)});  // a packed message may not have a UCX header
  LAPI_OK(lapi::testing::send_raw(ctx, peer, 13, framed.data(), framed.size(), framed.data(),
                                  framed.size()));
  // Harmless junk that must simply be ignored: a reply nobody asked for.
  const auto stray = words({src, 0, 4242, 0, 0});
  LAPI_OK(lapi::testing::send_raw(ctx, peer, 6, stray.data(), stray.size(), nullptr, 0));
  LAPI_OK(ctx.gfence());
  LAPI_OK(ctx.barrier());
  CHECK(ctx.fault_stats().refused_here - before >= bad.size() + bad_packed.size() + 1);
  // Still healthy.
  lapi::Counter ok;
  LAPI_OK(ctx.amsend(peer, 1, nullptr, 0, nullptr, 0, {{}, nullptr, &ok}));
  LAPI_OK(ctx.waitcntr(ok, 1));
  LAPI_OK(ctx.barrier());
}

TEST_CASE("two contexts in one process are independent") {
  lapi::Context& first = rank_context();
  std::unique_ptr<lapi::Context> second;
  lapi::Config config;
  LAPI_OK(lapi::Config::from_env(config));
  LAPI_OK(lapi::Context::init(config, second));
  static std::atomic<int> hits_first{0}, hits_second{0};
  LAPI_OK(first.register_handler(5, [](lapi::Context&, const lapi::AmHeaderInfo&) {
    hits_first.fetch_add(1);
    return lapi::Landing{};
  }));
  LAPI_OK(second->register_handler(5, [](lapi::Context&, const lapi::AmHeaderInfo&) {
    hits_second.fetch_add(1);
    return lapi::Landing{};
  }));
  LAPI_OK(first.barrier());
  LAPI_OK(second->barrier());
  const lapi::TaskId peer = (first.task_id() + 1) % first.num_tasks();
  for (int i = 0; i < 3; ++i) LAPI_OK(second->amsend(peer, 5, nullptr, 0, nullptr, 0));
  LAPI_OK(first.amsend(peer, 5, nullptr, 0, nullptr, 0));
  LAPI_OK(second->gfence());
  LAPI_OK(first.gfence());
  CHECK(hits_first.load() == 1);
  CHECK(hits_second.load() == 3);
  LAPI_OK(second->term());
  int x = 0;
  expect_error(second->amsend(peer, 5, nullptr, 0, &x, 4), lapi::Errc::terminated, "terminated");
  expect_error(second->barrier(), lapi::Errc::terminated, "terminated");
  LAPI_OK(first.barrier());
}
