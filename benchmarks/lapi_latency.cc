// Ping-pong latency of Lapis Amsend and Put beside raw UCX, polling and
// interrupt mode, each completion policy. Run: lapirun -n 2 lapi_latency.
#include "benchmarks/harness.hpp"

int main(int argc, char** argv) {
  return lapis::benchmarks::run_benchmark(lapis::benchmarks::BenchKind::latency, argc, argv);
}
