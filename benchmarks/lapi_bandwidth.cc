// Streaming bandwidth (a window of outstanding sends, then an acknowledgement)
// of Lapis Amsend and Put beside raw UCX. Run: lapirun -n 2 lapi_bandwidth.
#include "benchmarks/harness.hpp"

int main(int argc, char** argv) {
  return lapis::benchmarks::run_benchmark(lapis::benchmarks::BenchKind::bandwidth, argc, argv);
}
