// mpi_paper_latency: raw Lapis Put and Amsend latency beside MPI ping-pong
// under the MPCPI variants base, counters and enhanced. Run it directly (it
// starts its own lapirun jobs); see paper.hpp.

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "benchmarks/paper/paper.hpp"

int main(int argc, char** argv) {
  using namespace lapis::benchmarks::paper;
  PaperOptions options;
  std::string error;
  // A rank of a job (started by the driver, or by hand under a launcher)
  // must not start jobs of its own.
  const bool under_launcher =
      std::getenv("LAPIS_RANK") != nullptr || std::getenv("PMIX_RANK") != nullptr;
  if (!parse_paper_options(argc, argv, options, error)) {
    const char* rank = std::getenv("LAPIS_RANK");
    if (rank == nullptr || std::string(rank) == "0") {
      fmt::print(stderr, "{}: {}\n{}", kProgram, error, paper_usage());
    }
    return 2;
  }
  if (options.common.help) {
    fmt::print("{}", paper_usage());
    return 0;
  }
  return options.child || under_launcher ? run_child(options) : run_driver(options);
}
