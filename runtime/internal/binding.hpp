#pragma once
// Where lapirun binds each rank (--bind-to, --map-by): the CPUs this
// launcher may use (its affinity mask: taskset, cgroups), grouped by core,
// and a pure function from a rank to its CPUs.
#include <string>
#include <vector>

#include "runtime/launcher_options.hpp"

namespace lapis::runtime::internal {

// The usable CPUs, one list per core (hardware threads of a core together),
// in core order.
struct CpuTopology {
  std::vector<std::vector<int>> cores;
  std::size_t hwthreads() const;
};

// From sched_getaffinity and /sys/devices/system/cpu/cpuN/topology (a CPU
// whose core is unknown is a core of its own).
CpuTopology read_topology();

// --bind-to auto: core when every rank gets a core of its own, otherwise
// none (oversubscribed ranks would share cores and wait on each other).
BindTo resolve_binding(BindTo requested, int nranks, const CpuTopology& topology);

// The CPUs rank `rank` is bound to (`bind` already resolved); empty: not
// bound. Ranks go round-robin over cores (--map-by core or slot: one host,
// one slot per core) or hardware threads, wrapping when there are more
// ranks than places.
std::vector<int> cpus_for_rank(const CpuTopology& topology, BindTo bind, int rank);

// "rank 0 bound to core 0 (cpus 0,2)", "rank 3 not bound" -- for --report-bindings.
std::string describe_binding(const CpuTopology& topology, BindTo bind, int rank);

}  // namespace lapis::runtime::internal
