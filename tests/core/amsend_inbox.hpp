#pragma once
// Shared by rank programs that check Amsend delivery by contents: each
// message carries its sequence number in the user header and a pattern of
// bytes derived from it; handler 1 lands it in a per-sequence buffer, so
// arrival order does not matter.

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "tests/core/rank_context.hpp"

namespace lapis::testing {

inline unsigned char pattern(std::uint32_t seq, std::size_t i) {
  return static_cast<unsigned char>(seq * 13 + i * 7 + 3);
}

// Each message carries its sequence number in the user header; the data
// lands in a per-sequence buffer so that arrival order does not matter.
struct Inbox {
  std::vector<std::vector<unsigned char>> slots;
  std::vector<std::uint32_t> order;  // sequence numbers as their headers arrived
  std::atomic<int> bad{0};
};
inline Inbox g_inbox;

inline lapi::Landing on_header(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto* inbox = static_cast<Inbox*>(info.handler_arg);
  std::uint32_t seq = 0;
  if (info.uhdr_len != sizeof seq) {
    inbox->bad.fetch_add(1);
    return {};
  }
  std::memcpy(&seq, info.uhdr, sizeof seq);
  if (seq >= inbox->slots.size()) {
    inbox->bad.fetch_add(1);
    return {};
  }
  inbox->order.push_back(seq);
  inbox->slots[seq].assign(info.data_len, 0);
  return {info.data_len ? inbox->slots[seq].data() : nullptr, nullptr, nullptr, nullptr};
}

inline void check_inbox(const std::vector<std::size_t>& sizes) {
  CHECK(g_inbox.bad.load() == 0);
  for (std::uint32_t seq = 0; seq < sizes.size(); ++seq) {
    const auto& got = g_inbox.slots[seq];
    REQUIRE(got.size() == sizes[seq]);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != pattern(seq, i);
    CHECK_MESSAGE(wrong == 0, "message ", seq, " of ", sizes[seq], " bytes has ", wrong, " wrong bytes");
  }
}

// Sends sizes[seq] bytes with sequence seq to tgt (target counter on the
// receiver). The buffers live until wait(): a send that UCX queues may
// still read its buffer.
struct Sender {
  lapi::Counter origin;
  lapi::Counter* completion = nullptr;  // optional completion counter
  std::vector<std::vector<unsigned char>> buffers;

  void send(lapi::Context& ctx, lapi::TaskId tgt, const std::vector<std::size_t>& sizes,
            lapi::RemoteCounter counter) {
    for (std::uint32_t seq = 0; seq < sizes.size(); ++seq) {
      auto& data = buffers.emplace_back(sizes[seq]);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = pattern(seq, i);
      LAPI_OK(ctx.amsend(tgt, 1, &seq, sizeof seq, data.data(), data.size(), {counter, &origin, completion}));
    }
  }
  void wait(lapi::Context& ctx) {
    LAPI_OK(ctx.waitcntr(origin, static_cast<int>(buffers.size())));
    buffers.clear();
  }
};

inline void send_all(lapi::Context& ctx, lapi::TaskId tgt, const std::vector<std::size_t>& sizes,
              lapi::RemoteCounter counter) {
  Sender sender;
  sender.send(ctx, tgt, sizes, counter);
  sender.wait(ctx);
}

struct Setup {
  lapi::Context& ctx;
  lapi::Counter landed;
  std::vector<std::uint64_t> counters;
};

inline Setup& setup(std::size_t slots) {
  static Setup s{rank_context(), {}, {}};
  static bool registered = false;
  if (!registered) {
    LAPI_OK(s.ctx.register_handler(1, on_header, &g_inbox));
    lapi::RemoteCounter mine;
    LAPI_OK(s.ctx.register_counter(s.landed, mine));
    s.counters = exchange(s.ctx, mine.handle);
    registered = true;
  }
  g_inbox.slots.assign(slots, {});
  g_inbox.order.clear();
  LAPI_OK(s.ctx.barrier());
  return s;
}

}  // namespace lapis::testing
