#pragma once
// Cross-memory attach (process_vm_readv/writev) between tasks on one host:
// split copy's parts (split_copy.cc), write_near, and Put/Get into memory
// UCX does not map (host_rma.cc).

#include <cstddef>
#include <cstdint>

namespace lapi::internal {

// Copies len bytes between here and task `pid`'s memory at `remote`
// (write: from here to there), resuming after a partial transfer. Returns 0
// or an errno value.
int cma_copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len, bool write);

}  // namespace lapi::internal
