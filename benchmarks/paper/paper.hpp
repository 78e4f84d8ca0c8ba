#pragma once
// mpi_paper_latency: the MPI-LAPI paper's figures 13-15 — raw Lapis Put and
// Amsend latency beside MPI ping-pong latency under the three MPCPI variants
// (base, counters, enhanced).
//
// The variant is fixed when MPI_Init creates the engine, so one invocation is
// a driver that starts one `lapirun -n 2` job per (variant, mode, rep),
// interleaved (rep outermost, the variant order rotating per rep). Each job
// (the "child", this same binary with --child) measures raw Put, raw Amsend
// (a second lapi context beside MPI's, in the same processes) and MPI
// ping-pong, alternating, so every job yields its own MPI/raw ratio whatever
// mode the host's latency happens to be in for that job.

#include <string>
#include <vector>

#include "benchmarks/options.hpp"

namespace lapis::benchmarks::paper {

inline constexpr const char* kProgram = "mpi_paper_latency";

struct PaperOptions {
  Options common;  // --sizes, --iters, --reps (jobs per variant), --mode, --json
  std::vector<std::string> variants{"base", "counters", "enhanced"};
  std::string lapirun;     // empty: found next to this binary
  double timeout_s = 300;  // per job
  int inner_reps = 3;      // repetitions inside one job (median reported)
  bool child = false;      // internal: this process is a rank of one job
};

// Parses argv[1..]; false with `error` naming the argument on bad input.
bool parse_paper_options(int argc, const char* const* argv, PaperOptions& out, std::string& error);
std::string paper_usage();

// A rank of one job (under lapirun, 2 ranks, LAPIS_MPI_VARIANT and
// LAPIS_MODE set by the driver). Rank 0 prints one line per measurement:
// {"bench":"paper_child","variant":"raw_put"|"raw_amsend"|<variant>,
//  "mode":…,"size":…,"us":…}. Returns the exit status.
int run_child(const PaperOptions& options);

// Starts the jobs, collects the child lines, prints the table or the
// {"bench":"paper",…} lines. Returns the exit status.
int run_driver(const PaperOptions& options);

}  // namespace lapis::benchmarks::paper
