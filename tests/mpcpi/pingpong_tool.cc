// Measurement tool (not a test): ping-pong latency and streaming bandwidth
// of MPCPI beside a raw lapi Amsend ping-pong in the same run. Used to pick
// the default eager limit: run once with LAPIS_EAGER_LIMIT=0 (all
// rendezvous) and once with a large limit (all eager) and compare.
//   lapirun -n 2 -x LAPIS_EAGER_LIMIT=0 tests/mpcpi/pingpong_tool [iterations [max_size]]
// Prints one JSON object per line: {"what":..., "size":..., "us":..., "MBps":...}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"

namespace {

using Clock = std::chrono::steady_clock;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "pingpong_tool: %s failed: %s\n", what,
                 std::string(mpcpi::last_error_detail()).c_str());
    std::exit(1);
  }
}

std::vector<unsigned char> g_landing;

lapi::Landing raw_header(lapi::Context&, const lapi::AmHeaderInfo& info) {
  return {info.data_len ? g_landing.data() : nullptr};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::size_t max_size = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : std::size_t{1} << 20;
  lapi::Config config;
  check(lapi::Config::from_env(config).ok(), "config");
  std::unique_ptr<lapi::Context> ctx;
  check(lapi::Context::init(config, ctx).ok(), "init");
  mpcpi::Options options;
  check(mpcpi::Options::from_env(options) == mpcpi::Errc::success, "options");
  std::unique_ptr<mpcpi::Engine> engine;
  check(mpcpi::Engine::create(*ctx, options, engine) == mpcpi::Errc::success, "create");
  const int me = static_cast<int>(ctx->task_id());
  const int peer = me ^ 1;
  if (peer >= static_cast<int>(ctx->num_tasks())) return 0;

  const std::vector<std::size_t> sizes = {8,     64,    512,   2048,   4096,    8192,   12288,
                                          16384, 24576, 32768, 65536, 262144, 1 << 20};
  g_landing.resize(sizes.back());
  lapi::Counter arrived;
  lapi::RemoteCounter mine;
  check(ctx->register_counter(arrived, mine).ok(), "register_counter");
  check(ctx->register_handler(1, raw_header).ok(), "register_handler");
  std::vector<std::uint64_t> handles(ctx->num_tasks());
  check(ctx->address_init(mine.handle, handles).ok(), "address_init");
  const lapi::RemoteCounter theirs{handles[peer]};
  std::vector<unsigned char> out(sizes.back(), 1);
  std::vector<unsigned char> in(sizes.back());

  for (std::size_t size : sizes) {
    if (size > max_size) break;
    const int n = size >= 65536 ? std::max(iters / 10, 50) : iters;
    // Raw Amsend ping-pong, target counter signals arrival.
    std::vector<double> raw;
    for (int rep = 0; rep < 5; ++rep) {
      check(ctx->barrier().ok(), "barrier");
      const auto t0 = Clock::now();
      for (int i = 0; i < n; ++i) {
        if (me % 2 == 0) {
          check(ctx->amsend(peer, 1, nullptr, 0, out.data(), size, {theirs}).ok(), "amsend");
          check(ctx->waitcntr(arrived, 1).ok(), "waitcntr");
        } else {
          check(ctx->waitcntr(arrived, 1).ok(), "waitcntr");
          check(ctx->amsend(peer, 1, nullptr, 0, out.data(), size, {theirs}).ok(), "amsend");
        }
      }
      raw.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n / 2);
    }
    // MPCPI send/recv ping-pong.
    std::vector<double> mpi;
    for (int rep = 0; rep < 5; ++rep) {
      check(ctx->barrier().ok(), "barrier");
      const auto t0 = Clock::now();
      for (int i = 0; i < n; ++i) {
        if (me % 2 == 0) {
          check(engine->send(out.data(), size, peer, 1, 9, mpcpi::SendMode::standard) ==
                    mpcpi::Errc::success, "send");
          check(engine->recv(in.data(), size, peer, 1, 9, nullptr) == mpcpi::Errc::success, "recv");
        } else {
          check(engine->recv(in.data(), size, peer, 1, 9, nullptr) == mpcpi::Errc::success, "recv");
          check(engine->send(out.data(), size, peer, 1, 9, mpcpi::SendMode::standard) ==
                    mpcpi::Errc::success, "send");
        }
      }
      mpi.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n / 2);
    }
    // MPCPI streaming bandwidth: windows of 32 nonblocking sends, then an ack.
    constexpr int kWindow = 32;
    const int windows = std::max(4, static_cast<int>((64u << 20) / (size * kWindow)));
    std::vector<mpcpi::Request*> reqs(kWindow);
    std::vector<std::vector<unsigned char>> inbox(kWindow, std::vector<unsigned char>(size));
    check(ctx->barrier().ok(), "barrier");
    const auto t0 = Clock::now();
    for (int w = 0; w < std::min(windows, 2000); ++w) {
      for (int k = 0; k < kWindow; ++k) {
        if (me % 2 == 0) {
          check(engine->isend(out.data(), size, peer, 2, 9, mpcpi::SendMode::standard, reqs[k]) ==
                    mpcpi::Errc::success, "isend");
        } else {
          check(engine->irecv(inbox[k].data(), size, peer, 2, 9, reqs[k]) == mpcpi::Errc::success,
                "irecv");
        }
      }
      for (auto* r : reqs) check(engine->wait(r, nullptr) == mpcpi::Errc::success, "wait");
      if (me % 2 == 0) {
        check(engine->recv(nullptr, 0, peer, 3, 9, nullptr) == mpcpi::Errc::success, "ack");
      } else {
        check(engine->send(nullptr, 0, peer, 3, 9, mpcpi::SendMode::standard) ==
                  mpcpi::Errc::success, "ack");
      }
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    const double mbps =
        static_cast<double>(size) * kWindow * std::min(windows, 2000) / secs / 1e6;
    if (me == 0) {
      std::printf("{\"what\":\"raw_amsend\",\"size\":%zu,\"us\":%.3f}\n", size, median(raw));
      std::printf("{\"what\":\"mpcpi_%s\",\"size\":%zu,\"us\":%.3f,\"MBps\":%.0f,\"eager_limit\":%zu}\n",
                  std::string(mpcpi::to_string(options.variant)).c_str(), size, median(mpi), mbps,
                  options.eager_limit);
      std::fflush(stdout);
    }
  }
  check(engine->finalize() == mpcpi::Errc::success, "finalize");
  check(ctx->term().ok(), "term");
  return 0;
}
