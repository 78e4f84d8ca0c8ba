// A rank program for the runtime tests. `bootstrap_probe MODE ARGS...`:
//   check SIZE KIND          collectives with rank-specific blobs; exit 0 if all results are right
//   exit RANK CODE           barrier, then RANK exits CODE; the others wait forever
//   sigkill RANK DIR         each rank forks a child, writes "<pid> <child pid>" to DIR/<rank>.pid,
//                            barrier, then RANK kills itself with SIGKILL; the others wait forever
//   die-in-allgather RANK CODE   the others ignore SIGTERM; barrier; RANK exits CODE while the others
//                            enter an allgather, which must fail: they print the error and exit 0
//   kill-launcher SIGNO DIR  each rank writes "<pid> 0" to DIR/<rank>.pid; barrier; rank 0 sends
//                            SIGNO to lapirun; everyone waits forever
//   mismatch                 rank 0 calls barrier while the others call allgather: all must fail
//   allgather-timeout        rank 0 never calls allgather; the others' allgather must time out
//                            (LAPIS_BOOTSTRAP_TIMEOUT); they print the error and exit 4
//   second-process           after a barrier, starts `expect-join-error` with this rank's LAPIS_*
//                            variables: it must not get in
//   double-hello FIFO        2 ranks: rank 0 joins and starts `expect-join-error` claiming rank 0
//                            while rank 1 has not joined yet (it waits on FIFO, opened by rank 0
//                            afterwards); the server must refuse the second hello
//   expect-join-error        process_bootstrap() must fail with an error containing $PROBE_EXPECT
//   leave-early RANK         every rank enters the job (leave call "probe_leave"); barrier; RANK
//                            exits 0 without leaving; the others wait forever
//   leave-then-exit RANK     every rank enters the job; barrier; every rank leaves it; RANK exits 0
//                            at once, the others wait (on a pidfd) until it is gone, then exit 0
//   sleep                    wait forever
//   env VAR...               print VAR=value (or "VAR unset") for each VAR
//   output                   write lines in pieces, with a barrier between the pieces
//   where                    barrier, print "rank R of N on HOSTNAME", barrier, exit 0
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/bootstrap.hpp"

namespace {

using lapis::runtime::Bootstrap;
using lapis::runtime::BootstrapError;
using lapis::runtime::process_bootstrap;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bootstrap_probe: FAILED: %s\n", what.c_str());
  std::exit(1);
}

void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

[[noreturn]] void wait_forever() {
  for (;;) ::pause();
}

void write_out(int fd, const std::string& text) {
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) std::exit(1);
}

std::byte pattern(int rank, int round, std::size_t i) {
  return static_cast<std::byte>((rank * 31 + round * 17 + static_cast<int>(i)) & 0xff);
}

std::vector<std::byte> make_blob(int rank, int round, std::size_t length) {
  std::vector<std::byte> blob(length);
  for (std::size_t i = 0; i < length; ++i) blob[i] = pattern(rank, round, i);
  return blob;
}

// One allgather where rank r contributes length_of(r) bytes; checks every rank's contribution.
template <typename LengthOf>
void checked_allgather(Bootstrap& boot, int round, LengthOf length_of) {
  const auto all = boot.allgather(make_blob(boot.rank(), round, length_of(boot.rank())));
  expect(all.size() == static_cast<std::size_t>(boot.size()), "allgather returned " + std::to_string(all.size()) + " blobs");
  for (int r = 0; r < boot.size(); ++r) {
    expect(all[static_cast<std::size_t>(r)] == make_blob(r, round, length_of(r)),
           "round " + std::to_string(round) + ": wrong blob from rank " + std::to_string(r));
  }
}

// First use from several threads at once must create exactly one bootstrap.
Bootstrap& bootstrap_from_threads() {
  std::vector<Bootstrap*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&seen, i] { seen[i] = &process_bootstrap(); });
  for (auto& t : threads) t.join();
  for (Bootstrap* b : seen) expect(b == seen[0], "process_bootstrap() returned different objects");
  return *seen[0];
}

int run_check(int expected_size, const std::string& expected_kind) {
  Bootstrap& boot = bootstrap_from_threads();
  expect(&boot == &process_bootstrap(), "process_bootstrap() is not a single object");
  expect(boot.kind() == expected_kind, "kind is '" + std::string(boot.kind()) + "', expected " + expected_kind);
  expect(boot.size() == expected_size, "size is " + std::to_string(boot.size()));
  expect(boot.rank() >= 0 && boot.rank() < boot.size(), "rank out of range: " + std::to_string(boot.rank()));
  if (const char* env_rank = std::getenv("LAPIS_RANK"); env_rank && expected_kind == "lapirun") {
    expect(boot.rank() == std::atoi(env_rank), "rank differs from LAPIS_RANK");
  }
  int round = 0;
  for (; round < 6; ++round) {  // lengths differ per rank and round; rank 0's first blob is empty
    checked_allgather(boot, round, [round](int r) { return static_cast<std::size_t>((r * 13 + round * 7) % 37); });
    if (round == 2) boot.barrier();
  }
  checked_allgather(boot, round++, [](int) { return std::size_t{0}; });
  // Large enough to need many partial reads and writes on the rendezvous socket.
  checked_allgather(boot, round++, [](int r) { return r == 0 ? std::size_t{(1 << 20) + 3} : std::size_t{10}; });
  boot.barrier();
  boot.barrier();
  std::printf("rank %d of %d: ok (%s)\n", boot.rank(), boot.size(), std::string(boot.kind()).c_str());
  return 0;
}

int run_exit(int target, int code) {
  Bootstrap& boot = process_bootstrap();
  boot.barrier();
  if (boot.rank() == target) return code;
  wait_forever();
}

int run_sigkill(int target, const std::string& dir) {
  Bootstrap& boot = process_bootstrap();
  const pid_t child = ::fork();
  if (child < 0) fail("fork");
  if (child == 0) wait_forever();  // a stray grandchild lapirun must clean up
  std::ofstream(dir + "/" + std::to_string(boot.rank()) + ".pid") << ::getpid() << " " << child << "\n";
  boot.barrier();  // every pid file is written before anyone dies
  if (boot.rank() == target) ::raise(SIGKILL);
  wait_forever();
}

// Calls `attempt` expecting a BootstrapError whose message contains `needle`; prints it.
template <typename Attempt>
int expect_bootstrap_error(int rank, const std::string& needle, Attempt attempt, int code = 0) {
  try {
    attempt();
  } catch (const BootstrapError& e) {
    std::printf("rank %d: BootstrapError: %s\n", rank, e.what());
    std::fflush(stdout);
    expect(std::string(e.what()).find(needle) != std::string::npos, "error does not mention '" + needle + "'");
    return code;
  }
  fail("no BootstrapError (expected one mentioning '" + needle + "')");
}

int run_die_in_allgather(int target, int code) {
  Bootstrap& boot = process_bootstrap();
  if (boot.rank() != target) ::signal(SIGTERM, SIG_IGN);  // only the rendezvous error may end us
  boot.barrier();
  if (boot.rank() == target) return code;
  return expect_bootstrap_error(boot.rank(), "rank " + std::to_string(target),
                                [&] { boot.allgather(make_blob(boot.rank(), 0, 5)); });
}

int run_kill_launcher(int signo, const std::string& dir) {
  Bootstrap& boot = process_bootstrap();
  std::ofstream(dir + "/" + std::to_string(boot.rank()) + ".pid") << ::getpid() << " 0\n";
  boot.barrier();
  if (boot.rank() == 0) ::kill(::getppid(), signo);
  wait_forever();
}

int run_mismatch() {
  Bootstrap& boot = process_bootstrap();
  return expect_bootstrap_error(boot.rank(), "collective mismatch", [&] {
    if (boot.rank() == 0) boot.barrier();
    else boot.allgather(make_blob(boot.rank(), 0, 3));
  });
}

int run_allgather_timeout() {
  Bootstrap& boot = process_bootstrap();
  if (boot.rank() == 0) wait_forever();
  return expect_bootstrap_error(boot.rank(), "no reply within", [&] { boot.allgather(make_blob(boot.rank(), 0, 3)); }, 4);
}

int run_second_process(const char* self) {
  Bootstrap& boot = process_bootstrap();
  boot.barrier();  // every rank has joined now, so lapirun has removed the socket file
  const std::string command = std::string("PROBE_EXPECT='cannot connect' ") + self + " expect-join-error";
  const int status = std::system(command.c_str());
  expect(status == 0, "'" + command + "' returned " + std::to_string(status));
  boot.barrier();  // the rendezvous still works for the real ranks
  std::printf("rank %d: second process rejected\n", boot.rank());
  return 0;
}

int run_double_hello(const char* self, const std::string& fifo) {
  const int env_rank = std::atoi(std::getenv("LAPIS_RANK") ? std::getenv("LAPIS_RANK") : "-1");
  if (env_rank == 1) {
    std::ifstream(fifo).get();  // blocks until rank 0 has opened and closed the FIFO
    process_bootstrap().barrier();
    return 0;
  }
  Bootstrap& boot = process_bootstrap();
  const std::string command = std::string("PROBE_EXPECT='already joined' ") + self + " expect-join-error";
  const int status = std::system(command.c_str());
  expect(status == 0, "'" + command + "' returned " + std::to_string(status));
  std::ofstream(fifo) << "go";  // now rank 1 may join
  boot.barrier();
  std::printf("rank %d: second hello refused\n", boot.rank());
  return 0;
}

int run_leave_early(int target) {
  Bootstrap& boot = process_bootstrap();
  boot.enter_job("probe_leave");
  boot.barrier();
  if (boot.rank() == target) std::exit(0);
  wait_forever();
}

int run_leave_then_exit(int target) {
  Bootstrap& boot = process_bootstrap();
  boot.enter_job("probe_leave");
  const pid_t me = ::getpid();
  const auto pids = boot.allgather(std::as_bytes(std::span(&me, 1)));
  boot.leave_job();
  if (boot.rank() == target) std::exit(0);
  pid_t leaver = 0;
  std::memcpy(&leaver, pids[static_cast<std::size_t>(target)].data(), sizeof leaver);
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, leaver, 0));
  if (fd >= 0) {  // readable once the process has exited (ESRCH above: already gone)
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0) {
    }
    ::close(fd);
  }
  std::printf("rank %d: rank %d left and exited\n", boot.rank(), target);
  return 0;
}

int run_env(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const char* value = std::getenv(argv[i]);
    if (value) std::printf("%s=%s\n", argv[i], value);
    else std::printf("%s unset\n", argv[i]);
  }
  return 0;
}

int run_output() {
  Bootstrap& boot = process_bootstrap();
  const std::string r = std::to_string(boot.rank());
  write_out(1, "first half " + r + " ");
  boot.barrier();  // every rank is now mid-line: untagged output would interleave here
  write_out(1, "second half " + r + "\nline two " + r + "\n");
  write_out(2, "error line " + r + "\n");
  write_out(1, "no newline " + r);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  auto arg = [&](int i) -> std::string {
    if (i >= argc) fail("missing argument " + std::to_string(i) + " for mode '" + mode + "'");
    return argv[i];
  };
  try {
    if (mode == "check") return run_check(std::stoi(arg(2)), arg(3));
    if (mode == "exit") return run_exit(std::stoi(arg(2)), std::stoi(arg(3)));
    if (mode == "sigkill") return run_sigkill(std::stoi(arg(2)), arg(3));
    if (mode == "die-in-allgather") return run_die_in_allgather(std::stoi(arg(2)), std::stoi(arg(3)));
    if (mode == "kill-launcher") return run_kill_launcher(std::stoi(arg(2)), arg(3));
    if (mode == "mismatch") return run_mismatch();
    if (mode == "allgather-timeout") return run_allgather_timeout();
    if (mode == "second-process") return run_second_process(argv[0]);
    if (mode == "double-hello") return run_double_hello(argv[0], arg(2));
    if (mode == "expect-join-error") {
      // "cannot connect" once every rank has joined (lapirun then removes the socket file),
      // "already joined" if the server still listened.
      const char* needle = std::getenv("PROBE_EXPECT");
      return expect_bootstrap_error(-1, needle ? needle : "", [] { process_bootstrap(); });
    }
    if (mode == "leave-early") return run_leave_early(std::stoi(arg(2)));
    if (mode == "leave-then-exit") return run_leave_then_exit(std::stoi(arg(2)));
    if (mode == "sleep") wait_forever();
    if (mode == "env") return run_env(argc, argv);
    if (mode == "output") return run_output();
    if (mode == "where") {
      Bootstrap& boot = process_bootstrap();
      boot.barrier();
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      std::printf("rank %d of %d on %s\n", boot.rank(), boot.size(), host);
      std::fflush(stdout);
      boot.barrier();
      return 0;
    }
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  fail("unknown mode '" + mode + "'");
}
