#pragma once
// Cross-memory attach between tasks on one host: split copy's parts
// (split_copy.cc), write_near, and Put/Get into memory UCX does not map
// (host_rma.cc).

#include <cstddef>
#include <cstdint>

namespace lapi::internal {

// Copies len bytes between here and task `pid`'s memory at `remote`
// (write: from here to there) with process_vm_readv/writev, resuming after
// a partial transfer. Returns 0 or an errno value.
int cma_copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len, bool write);

// A near task's /proc/PID/mem, opened on first use, for small transfers:
// every system call costs about 1 us on this project's PVM guests, and
// process_vm_readv/writev then spends another on finding the task and
// checking the right to its memory, which the file did once, when it was
// opened (8 B: pread/pwrite 1.69 us against 1.96; the same to 2 KiB).
// From 8 KiB the file is the slower (it copies through a kernel page: 16
// KiB 3.2 against 2.7 us), so larger transfers, and every transfer where
// the file cannot be opened, go by cma_copy.
//
// A write through the file lands even in a page the task mapped read-only
// (the kernel writes by force there, as for a debugger), where
// process_vm_writev fails: so writes take the file only into memory the
// task named for writing itself (write_near's announced receive buffers);
// a Put, whose target memory may be registered read-only, keeps cma_copy.
class ProcMem {
 public:
  static constexpr std::size_t kMaxBytes = 4096;

  ProcMem() = default;
  ~ProcMem();
  ProcMem(ProcMem&& other) noexcept : fd_(other.fd_) { other.fd_ = kUnopened; }
  ProcMem& operator=(ProcMem&& other) noexcept;
  ProcMem(const ProcMem&) = delete;
  ProcMem& operator=(const ProcMem&) = delete;

  // As cma_copy, through the file when len <= kMaxBytes and it opens.
  int copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len, bool write);

 private:
  static constexpr int kUnopened = -1;
  static constexpr int kUnavailable = -2;  // open failed once: not tried again
  void close_file();

  int fd_ = kUnopened;
};

}  // namespace lapi::internal
