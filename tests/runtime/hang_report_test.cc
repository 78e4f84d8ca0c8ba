// Reading the call each thread waits in from gdb's backtraces (the text of
// `thread apply all bt`, as gdb 13 prints it).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "runtime/internal/hang_report.hpp"

using lapis::runtime::internal::waiting_calls;

TEST_CASE("the outermost MPI frame of each thread, main thread first") {
  const std::string text = R"(
Thread 3 (Thread 0x7f1 (LWP 12) "worker"):
#0  0x00007f in __GI___poll (fds=0x7f, nfds=1, timeout=10) at poll.c:29
#1  0x00007f in lapi::Context::waitcntr(lapi::Counter&, int, int*) () from /x/libmpi.so.12
#2  0x00007f in MPI_Wait () from /x/libmpi.so.12
#3  0x00007f in PMPI_Waitall () from /x/libmpi.so.12
#4  0x00007f in worker (arg=0x0) at prog.c:10
Thread 2 (Thread 0x7f2 (LWP 11) "async"):
#0  0x00007f in epoll_wait (epfd=8) at epoll_wait.c:30
#1  0x00007f in ucs_event_set_wait () from /lib/libucs.so.0
Thread 1 (Thread 0x7f3 (LWP 10) "prog"):
#0  0x00007f in __GI_sched_yield () at syscall-template.S:120
#1  0x00007f in mpcpi::Engine::recv(void*, unsigned long, int, int, unsigned int, mpcpi::Status*) () from /x/libmpi.so.12
#2  0x00007f in MPI_Recv () from /x/libmpi.so.12
#3  0x00005f in main () at prog.c:20
)";
  // PMPI_Waitall is the user's call (MPI_Wait is Lapis' own, inside it).
  CHECK(waiting_calls(text) == std::vector<std::string>{"MPI_Recv", "MPI_Waitall [thread 3]"});
}

TEST_CASE("LAPI programs, frames with arguments, and nothing to find") {
  CHECK(waiting_calls("Thread 1 (Thread 0x1 (LWP 5) \"p\"):\n"
                      "#0  LAPI_Waitcntr (hndl=1, cntr=0x7f, val=1, cur=0x0) at c_api.cc:10\n"
                      "#1  0x0000 in main () at p.c:3\n") == std::vector<std::string>{"LAPI_Waitcntr"});
  CHECK(waiting_calls("Thread 1 (Thread 0x1 (LWP 5) \"p\"):\n#0  0x1 in compute () at p.c:3\n").empty());
  CHECK(waiting_calls("").empty());
  CHECK(waiting_calls("ptrace: Operation not permitted.\n").empty());
}

TEST_CASE("what a blocked MPI rank waits for, from gdb's dump of lapis_wait_state") {
  using lapis::runtime::internal::wait_details;
  const std::string recv =
      "0x7f12a4c0e0c0 <lapis_wait_state>:\t1279348823\t1\t2\t7\n"
      "0x7f12a4c0e0d0 <lapis_wait_state+16>:\t0\t1\t3\t0\n";
  CHECK(wait_details(recv) == "receive from 2, tag 7, context 0; 1 receives posted, 3 unexpected messages");
  const std::string probe =
      "0x55d0 <lapis_wait_state>:\t1279348823\t3\t-1\t42\n0x55e0 <lapis_wait_state+16>:\t4\t0\t0\t0\n";
  CHECK(wait_details(probe) == "probe for any, tag 42, context 4; 0 receives posted, 0 unexpected messages");
  // Not blocked any more, never written, no such symbol (not an MPI program).
  CHECK(wait_details("0x1 <lapis_wait_state>:\t1279348823\t0\t2\t7\n0x2 <lapis_wait_state+16>:\t0\t1\t3\t0\n")
            .empty());
  CHECK(wait_details("0x1 <lapis_wait_state>:\t0\t0\t0\t0\n0x2 <lapis_wait_state+16>:\t0\t0\t0\t0\n").empty());
  CHECK(wait_details("No symbol \"lapis_wait_state\" in current context.\n").empty());
}

TEST_CASE("a gdb that runs out of time is reported as such, not as a rank outside MPI") {
  // A child that outlives the report; a zero budget ends every gdb at once.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  lapis::runtime::internal::HangReportOptions options;
  options.gdb_timeout_seconds = 0;
  const auto lines = lapis::runtime::internal::describe_ranks({{0, child}}, options);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("rank 0 (pid " + std::to_string(child) +
                      "): cannot say where it waits: gdb ran out of time (0 s)") == 0);
}
