// Fuzzes the core's control messages (lapi/internal/wire.hpp: counter
// updates, fences, rkey requests, split copy, checksum replies, checksummed
// Rmw requests and replies ...): a one-task job with LAPIS_CHECKSUM=crc32c
// receives forged messages of every protocol id and any length through the
// real UCX receive path, mixed with real checksummed Rmw, Put and Get on a
// registered window. Forged Rmw requests and replies carry a correct CRC
// when the input asks, so that they reach the code that applies them.
//
// Input: a stream of operations, one byte each plus its arguments (run_op).
// The context lives for the process.
//
// Checks, besides the sanitizers: no byte of the guard pages around the
// window ever changes (a forged message may change the window, which it
// names, and nothing else), and the context keeps working: every real
// operation returns success or a documented refusal, and never hangs
// (libFuzzer's -timeout).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/wire.hpp"
#include "lapi/testing.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

using lapi::internal::Proto;

using lapis::fuzz::Input;
using lapis::fuzz::require;

constexpr std::size_t kWindow = 4096;
constexpr std::size_t kGuard = 4096;
constexpr std::uint8_t kGuardByte = 0xA5;

// The window between two guard areas, registered once; the context's fault
// reports are counted, not printed (every forged message may cause one).
struct Job {
  std::unique_ptr<lapi::Context> ctx;
  std::vector<std::uint8_t> memory = std::vector<std::uint8_t>(kGuard + kWindow + kGuard, kGuardByte);
  std::uint8_t* window() { return memory.data() + kGuard; }
  std::uint64_t base() { return reinterpret_cast<std::uintptr_t>(window()); }
};

Job& job() {
  static Job* j = [] {
    auto* made = new Job;
    lapi::Config config;
    config.mode = lapi::ProgressMode::polling;
    config.checksum = lapi::Checksum::crc32c;
    require(lapi::Context::init(config, made->ctx).ok());
    require(made->ctx->register_memory(made->window(), kWindow).ok());
    made->ctx->set_remote_error_handler([](lapi::Context&, lapi::TaskId, lapi::Errc, const char*, void*) {},
                                        nullptr);
    return made;
  }();
  return *j;
}

// A CRC32C over every byte before `crc`, as the core computes it.
template <typename Wire>
void seal(Wire& w) {
  w.crc = lapi::internal::crc32c_extend(0, &w, offsetof(Wire, crc));
}

// An address the input picks: in the window (aligned or not), at its edges,
// in a guard, or anything at all.
std::uint64_t pick_address(Input& in) {
  const std::uint8_t how = in.byte();
  const std::uint64_t offset = in.u64(2);
  switch (how % 5) {
    case 0: return job().base() + (offset % kWindow) / 8 * 8;
    case 1: return job().base() + offset % kWindow;
    case 2: return job().base() + kWindow - (offset % 16);
    case 3: return job().base() - 1 - offset % kGuard;
    default: return in.u64();
  }
}

void forge_raw(Input& in) {
  const unsigned id = 1 + in.byte() % (static_cast<unsigned>(Proto::kCount) - 1);
  std::vector<std::uint8_t> header = in.bytes(in.byte() % 96);
  if (header.size() >= 4) std::memset(header.data(), 0, 4);  // src: this task, mostly
  (void)lapi::testing::send_raw(*job().ctx, 0, id, header.data(), header.size(), nullptr, 0);
}

void forge_rmw_request(Input& in) {
  lapi::internal::RmwRequestWire w{};
  w.src = 0;
  w.attempt = static_cast<std::uint16_t>(in.u64(2));
  w.op = in.byte() % 6;
  const std::uint8_t width = in.byte();
  w.width = width < 128 ? 8 : width < 240 ? 4 : width;
  w.token = in.u64(2);
  w.addr = pick_address(in);
  w.operand = in.u64();
  w.compare = in.u64();
  w.oldest = in.u64(2);
  w.retry = in.byte() % 4;
  seal(w);
  if (in.byte() % 8 == 0) w.crc ^= 1u << (in.byte() % 32);
  (void)lapi::testing::send_raw(*job().ctx, 0, static_cast<unsigned>(Proto::rmw_request), &w, sizeof w,
                                nullptr, 0);
}

void forge_rmw_reply(Input& in) {
  lapi::internal::RmwReplyWire w{};
  w.src = 0;
  w.code = static_cast<std::int32_t>(in.byte()) - 8;
  w.token = in.u64(2);
  w.old = in.u64();
  w.attempt = static_cast<std::uint16_t>(in.byte() % 4);
  seal(w);
  (void)lapi::testing::send_raw(*job().ctx, 0, static_cast<unsigned>(Proto::rmw_reply), &w, sizeof w,
                                nullptr, 0);
}

// A real checksummed Rmw, Put or Get on the window; success or a refusal.
void real_access(Input& in) {
  lapi::Context& ctx = *job().ctx;
  const std::uint8_t what = in.byte();
  const std::uint64_t addr = job().base() + (in.u64(2) % (kWindow / 8)) * 8;
  lapi::Counter done;
  if (what % 3 == 0) {
    std::int64_t prev = 0;
    const auto op = static_cast<lapi::RmwOp>(in.byte() % 4);
    if (!ctx.rmw64(op, 0, addr, static_cast<std::int64_t>(in.u64()), 0, &prev, &done).ok()) return;
  } else {
    std::array<std::uint8_t, 64> buf{};
    const std::size_t len = 1 + in.byte() % buf.size();
    const std::size_t room = job().base() + kWindow - addr;
    const std::size_t n = std::min(len, room);
    const bool put = what % 3 == 1;
    const lapi::Status s = put ? ctx.put(0, n, addr, buf.data(), {{}, &done, nullptr})
                               : ctx.get(0, n, addr, buf.data(), {}, &done);
    if (!s.ok()) return;
  }
  (void)ctx.waitcntr(done, 1);
}

void run_op(Input& in) {
  switch (in.byte() % 6) {
    case 0: forge_raw(in); break;
    case 1:
    case 2: forge_rmw_request(in); break;
    case 3: forge_rmw_reply(in); break;
    case 4: real_access(in); break;
    default: (void)job().ctx->probe(); break;
  }
}

bool guards_intact() {
  const auto& m = job().memory;
  const auto intact = [](auto first, auto last) {
    return std::all_of(first, last, [](std::uint8_t b) { return b == kGuardByte; });
  };
  return intact(m.begin(), m.begin() + kGuard) && intact(m.end() - kGuard, m.end());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  for (int ops = 0; !in.empty() && ops < 64; ++ops) run_op(in);
  // Whatever arrived is handled; a real access still completes afterwards.
  for (int i = 0; i < 4; ++i) (void)job().ctx->probe();
  std::int64_t prev = 0;
  lapi::Counter done;
  require(job().ctx->rmw64(lapi::RmwOp::fetch_and_add, 0, job().base(), 0, 0, &prev, &done).ok());
  require(job().ctx->waitcntr(done, 1).ok());
  require(guards_intact());
  return 0;
}
