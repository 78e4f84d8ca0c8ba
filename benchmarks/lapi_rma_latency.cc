// The core's side of mpi_rma_latency: task 0 Puts/Gets `size` bytes into
// memory task 1 allocated with alloc_registered, each followed by
// flush_rma(1) (Put) or a wait on the origin counter (Get), and 8-byte
// rmw64 fetch-and-add / compare-and-swap waited for; task 1 only waits in
// the final barrier. One JSON line per (op, size) with --json, else a
// table. Run: lapirun -n 2 lapi_rma_latency [--json] [--sizes 8,64,...]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lapi/context.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(const lapi::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "lapi_rma_latency: %s: %s\n", what, s.message().c_str());
  std::exit(1);
}

long iters_for(std::size_t size) { return size <= 65536 ? 2000 : size <= 262144 ? 500 : 100; }

}  // namespace

int main(int argc, char** argv) {
  bool json = false;
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) json = true;
    if (std::strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      std::string list = argv[++i];
      for (std::size_t p = 0; p < list.size();) {
        std::size_t q = list.find(',', p);
        if (q == std::string::npos) q = list.size();
        sizes.push_back(std::stoul(list.substr(p, q - p)));
        p = q + 1;
      }
    }
  }
  if (sizes.empty()) {
    for (std::size_t s = 8; s <= (1u << 20); s *= 4) sizes.push_back(s);
  }
  std::size_t max = 8;
  for (std::size_t s : sizes) max = std::max(max, s);
  lapi::Config config;
  check(lapi::Config::from_env(config), "configuration");
  std::unique_ptr<lapi::Context> ctx;
  check(lapi::Context::init(config, ctx), "init");
  if (ctx->num_tasks() != 2) {
    std::fprintf(stderr, "lapi_rma_latency: needs exactly 2 tasks\n");
    return 1;
  }
  void* mem = nullptr;
  check(ctx->alloc_registered(max, mem), "alloc_registered");
  std::memset(mem, 0, max);
  std::uint64_t addrs[2];
  check(ctx->address_init(reinterpret_cast<std::uint64_t>(mem), addrs), "address_init");
  check(ctx->prefetch_key(1 - ctx->task_id(), addrs[1 - ctx->task_id()], max), "prefetch_key");
  std::vector<char> buf(max, 'a');
  check(ctx->barrier(), "barrier");
  if (ctx->task_id() == 0) {
    if (!json) std::printf("# lapi_rma_latency: core put+flush_rma / get / rmw64\n%18s %8s %10s %12s\n", "op", "size", "iters", "us");
    auto report = [&](const char* op, std::size_t size, long iters, double s) {
      const double us = s / static_cast<double>(iters) * 1e6;
      if (json) {
        std::printf("{\"bench\":\"lapi_rma_latency\",\"impl\":\"lapis-core\",\"op\":\"%s\",\"size\":%zu,\"iters\":%ld,\"us\":%.4f}\n", op, size, iters, us);
      } else {
        std::printf("%18s %8zu %10ld %12.3f\n", op, size, iters, us);
      }
      std::fflush(stdout);
    };
    lapi::Counter done;
    for (int op = 0; op < 2; ++op) {
      for (std::size_t size : sizes) {
        const long iters = iters_for(size), warm = iters / 10 + 2;
        double start = 0;
        for (long i = 0; i < warm + iters; ++i) {
          if (i == warm) start = now();
          if (op == 0) {
            check(ctx->put(1, size, addrs[1], buf.data()), "put");
            check(ctx->flush_rma(1), "flush_rma");
          } else {
            check(ctx->get(1, size, addrs[1], buf.data(), {}, &done), "get");
            check(ctx->waitcntr(done, 1), "waitcntr");
          }
        }
        report(op == 0 ? "put" : "get", size, iters, now() - start);
      }
    }
    for (int op = 0; op < 2; ++op) {
      const long iters = 5000, warm = 500;
      std::int64_t prev = 0, cmp = 0;
      double start = 0;
      for (long i = 0; i < warm + iters; ++i) {
        if (i == warm) start = now();
        if (op == 0) {
          check(ctx->rmw64(lapi::RmwOp::fetch_and_add, 1, addrs[1], 1, 0, &prev, &done), "rmw64");
        } else {
          check(ctx->rmw64(lapi::RmwOp::compare_and_swap, 1, addrs[1], 1, cmp, &prev, &done), "rmw64");
        }
        check(ctx->waitcntr(done, 1), "waitcntr");
        cmp = prev;
      }
      report(op == 0 ? "fetch_and_add" : "compare_and_swap", 8, iters, now() - start);
    }
  }
  check(ctx->barrier(), "barrier");
  check(ctx->free_registered(mem), "free_registered");
  check(ctx->term(), "term");
  return 0;
}
