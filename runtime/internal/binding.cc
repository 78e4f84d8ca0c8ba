#include "runtime/internal/binding.hpp"

#include <sched.h>

#include <fstream>
#include <map>
#include <utility>

namespace lapis::runtime::internal {
namespace {

int read_topology_number(int cpu, const char* field) {
  std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + field);
  int value = -1;
  return (f >> value) ? value : -1;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (int cpu : cpus) text += (text.empty() ? "" : ",") + std::to_string(cpu);
  return text;
}

}  // namespace

std::size_t CpuTopology::hwthreads() const {
  std::size_t n = 0;
  for (const auto& core : cores) n += core.size();
  return n;
}

CpuTopology read_topology() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {};
  // (package, core) -> its CPUs; a CPU without topology files is a core alone.
  std::map<std::pair<int, int>, std::vector<int>> by_core;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const int package = read_topology_number(cpu, "physical_package_id");
    const int core = read_topology_number(cpu, "core_id");
    by_core[core < 0 ? std::pair(-1, -1 - cpu) : std::pair(package, core)].push_back(cpu);
  }
  CpuTopology topology;
  for (auto& [key, cpus] : by_core) topology.cores.push_back(std::move(cpus));
  return topology;
}

BindTo resolve_binding(BindTo requested, int nranks, const CpuTopology& topology) {
  if (requested != BindTo::automatic) return requested;
  const bool room = !topology.cores.empty() && static_cast<std::size_t>(nranks) <= topology.cores.size();
  return room ? BindTo::core : BindTo::none;
}

std::vector<int> cpus_for_rank(const CpuTopology& topology, BindTo bind, int rank) {
  if (topology.cores.empty() || rank < 0) return {};
  const auto r = static_cast<std::size_t>(rank);
  if (bind == BindTo::core) return topology.cores[r % topology.cores.size()];
  if (bind == BindTo::hwthread) {
    std::vector<int> all;
    for (const auto& core : topology.cores) all.insert(all.end(), core.begin(), core.end());
    return {all[r % all.size()]};
  }
  return {};
}

std::string describe_binding(const CpuTopology& topology, BindTo bind, int rank) {
  const std::vector<int> cpus = cpus_for_rank(topology, bind, rank);
  const std::string who = "rank " + std::to_string(rank);
  if (cpus.empty()) return who + " not bound";
  if (bind == BindTo::hwthread) return who + " bound to hwthread " + std::to_string(cpus.front());
  const std::size_t core = static_cast<std::size_t>(rank) % topology.cores.size();
  return who + " bound to core " + std::to_string(core) + " (cpus " + cpu_list(cpus) + ")";
}

}  // namespace lapis::runtime::internal
