// Cross-memory attach (lapi/internal/cma.hpp): process_vm_readv/writev and
// ProcMem's /proc/PID/mem, into a child process's memory and this one's.

#include "lapi/internal/cma.hpp"

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

using lapi::internal::cma_copy;
using lapi::internal::ProcMem;

namespace {

// A child process holding `bytes` of private memory at the same address as
// the parent's copy (fork), which the parent writes and reads. It waits
// for a byte on a pipe, then exits with 0 if its memory holds `expect`
// (checked in the child: the parent's view is its own copy).
class Child {
 public:
  Child(std::vector<unsigned char>& memory, unsigned char expect) {
    REQUIRE(pipe(pipe_) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      char go = 0;
      while (read(pipe_[0], &go, 1) < 0 && errno == EINTR) {
      }
      for (unsigned char b : memory) {
        if (b != expect) _exit(1);
      }
      _exit(0);
    }
  }
  std::uint32_t pid() const { return static_cast<std::uint32_t>(pid_); }
  // Lets the child check its memory; its verdict.
  bool finish() {
    const char go = 1;
    REQUIRE(write(pipe_[1], &go, 1) == 1);
    int status = 0;
    REQUIRE(waitpid(pid_, &status, 0) == pid_);
    close(pipe_[0]);
    close(pipe_[1]);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  int pipe_[2] = {-1, -1};
  pid_t pid_ = -1;
};

std::uint64_t address(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

}  // namespace

TEST_CASE("ProcMem writes into and reads from another process at every size") {
  for (std::size_t len : {std::size_t{1}, std::size_t{8}, std::size_t{4096},
                          ProcMem::kMaxBytes + 1, std::size_t{64 * 1024}}) {
    CAPTURE(len);
    std::vector<unsigned char> memory(len, 0x11);
    Child child(memory, 0x5a);
    ProcMem mem;
    std::vector<unsigned char> data(len, 0x5a);
    CHECK(mem.copy(child.pid(), data.data(), address(memory.data()), len, true) == 0);
    std::vector<unsigned char> back(len, 0);
    CHECK(mem.copy(child.pid(), back.data(), address(memory.data()), len, false) == 0);
    CHECK(back == data);
    CHECK(std::memcmp(memory.data(), std::vector<unsigned char>(len, 0x11).data(), len) == 0);
    CHECK(child.finish());
  }
}

TEST_CASE("ProcMem and cma_copy report an address with nothing mapped") {
  const long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(gone != MAP_FAILED);
  REQUIRE(munmap(gone, static_cast<std::size_t>(page)) == 0);
  const auto me = static_cast<std::uint32_t>(getpid());
  std::uint64_t word = 7;
  ProcMem mem;
  CHECK(mem.copy(me, &word, address(gone), sizeof word, false) != 0);
  CHECK(mem.copy(me, &word, address(gone), sizeof word, true) != 0);
  CHECK(cma_copy(me, &word, address(gone), sizeof word, false) != 0);
  CHECK(word == 7);
}

TEST_CASE("ProcMem falls back to cma_copy when the task's file cannot be opened") {
  ProcMem mem;
  std::uint64_t word = 0;
  const std::uint64_t source = 42;
  // No process has pid 0: its file does not open, and cma_copy fails too.
  CHECK(mem.copy(0, &word, address(&source), sizeof word, false) != 0);
  // Not opened again (moved along): cma_copy moves the data, here from this process.
  ProcMem moved = std::move(mem);
  CHECK(moved.copy(static_cast<std::uint32_t>(getpid()), &word, address(&source), sizeof word,
                   false) == 0);
  CHECK(word == 42);
}
