#pragma once
// Where each rank of a stuck job is waiting, read from outside with gdb
// (lapirun --timeout, SIGUSR1 to lapirun, --get-stack-traces). The ranks
// need no cooperation: gdb attaches to all of them at once, prints every
// thread's backtrace and detaches; the outermost MPI_ (or PMPI_) frame of a
// thread names the call it waits in (or the LAPI_ / lapi:: call for a
// program of the core alone).
#include <sys/types.h>

#include <string>
#include <vector>

namespace lapis::runtime::internal {

struct RankProcess {
  int rank = 0;
  pid_t pid = -1;
};

struct HangReportOptions {
  bool full_stacks = false;     // --get-stack-traces: every thread's whole backtrace too
  double job_seconds = 0;       // how long the job has run, for the report
  int gdb_timeout_seconds = 20;  // gdb gets this long in all before it is killed
};

// One line per rank ("rank 0: waiting in MPI_Recv (receive from 1, tag 0,
// context 0; ...) (job running 5.0 s)"),
// followed by its backtraces with full_stacks. Blocks until gdb is done
// (bounded by gdb_timeout_seconds). Without gdb, or when gdb cannot attach,
// the lines say so.
std::vector<std::string> describe_ranks(const std::vector<RankProcess>& ranks,
                                        const HangReportOptions& options);

// The call a thread waits in, from gdb's backtrace text of one process
// (exposed for tests): one entry per thread that is inside a library call,
// e.g. "MPI_Recv" or "MPI_Recv [thread 3]"; empty if none is.
std::vector<std::string> waiting_calls(const std::string& backtraces);

// What an MPI rank's blocking wait is for, from gdb's dump of mpcpi's
// lapis_wait_state words (exposed for tests): "receive from 1, tag 0,
// context 0; 2 receives posted, 1 unexpected messages", or empty when the
// rank is not blocked in mpcpi (or is no MPI program).
std::string wait_details(const std::string& gdb_output);

}  // namespace lapis::runtime::internal
