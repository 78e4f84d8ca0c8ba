// hw_resources.hpp: sysfs's CPU topology, turned into MPI 4.1's resource types.
#include "mpi/internal/hw_resources.hpp"

#include <sched.h>

#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

namespace mpi {

namespace {

namespace fs = std::filesystem;

// Coarse to fine, as hwloc orders them.
constexpr std::array<std::string_view, 8> kTypes = {
    "hwloc://Machine", "hwloc://Package", "hwloc://NUMANode", "hwloc://L3Cache",
    "hwloc://L2Cache", "hwloc://L1Cache", "hwloc://Core",     "hwloc://PU"};

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A sysfs integer file; -1 if absent or not a number.
int read_int(const fs::path& path) {
  const std::string s = read_line(path);
  int v = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end != s.data() ? v : -1;
}

// A resource instance per CPU: the lowest CPU of a sysfs CPU list (a core's
// or a cache's, which all its CPUs share), or -1.
int first_of_list(const fs::path& path) {
  const std::vector<int> cpus = parse_cpu_list(read_line(path));
  return cpus.empty() ? -1 : cpus.front();
}

// Whether every CPU maps to the same instance: the instance, or -1. Nullopt
// (type left out) when sysfs knows no CPU's instance.
std::optional<int> common_instance(const std::vector<int>& cpus,
                                   const std::function<int(int)>& instance_of) {
  int common = -1;
  bool known = false, same = true;
  for (int cpu : cpus) {
    const int i = instance_of(cpu);
    if (i < 0) {
      same = false;
      continue;
    }
    if (known && i != common) same = false;
    if (!known) common = i;
    known = true;
  }
  if (!known) return std::nullopt;
  return same ? common : -1;
}

// cpu -> the cache of that level holding it (hwloc's L1Cache is the data
// cache; instruction caches are not resources a process is placed on).
int cache_of(const fs::path& cpu_dir, int level) {
  std::error_code ec;
  for (const auto& index : fs::directory_iterator(cpu_dir / "cache", ec)) {
    if (index.path().filename().string().rfind("index", 0) != 0) continue;
    if (read_int(index.path() / "level") != level) continue;
    if (read_line(index.path() / "type") == "Instruction") continue;
    return first_of_list(index.path() / "shared_cpu_list");
  }
  return -1;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view list) {
  std::vector<int> cpus;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view part = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    int lo = -1, hi = -1;
    const char* end = part.data() + part.size();
    auto [p, ec] = std::from_chars(part.data(), end, lo);
    if (ec != std::errc() || lo < 0) return {};
    hi = lo;
    if (p != end) {
      if (*p != '-') return {};
      auto [q, ec2] = std::from_chars(p + 1, end, hi);
      if (ec2 != std::errc() || q != end || hi < lo || hi - lo > 1 << 20) return {};
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::vector<HwResource> hw_resources(const std::string& sysfs, const std::vector<int>& cpus) {
  const fs::path cpu_root = fs::path(sysfs) / "devices/system/cpu";
  const auto cpu_dir = [&](int cpu) { return cpu_root / ("cpu" + std::to_string(cpu)); };
  std::map<int, int> node_of;  // cpu -> NUMA node
  std::error_code ec;
  for (const auto& node : fs::directory_iterator(fs::path(sysfs) / "devices/system/node", ec)) {
    const std::string name = node.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4) continue;
    int id = -1;
    const auto [end, perr] = std::from_chars(name.data() + 4, name.data() + name.size(), id);
    if (perr != std::errc() || end != name.data() + name.size()) continue;
    for (int cpu : parse_cpu_list(read_line(node.path() / "cpulist"))) node_of[cpu] = id;
  }

  // In hw_resource_types()' order.
  const std::function<int(int)> instance_of[] = {
      [](int) { return 0; },
      [&](int c) { return read_int(cpu_dir(c) / "topology/physical_package_id"); },
      [&](int c) { return node_of.count(c) ? node_of[c] : -1; },
      [&](int c) { return cache_of(cpu_dir(c), 3); },
      [&](int c) { return cache_of(cpu_dir(c), 2); },
      [&](int c) { return cache_of(cpu_dir(c), 1); },
      [&](int c) { return first_of_list(cpu_dir(c) / "topology/thread_siblings_list"); },
      [](int c) { return c; },
  };
  static_assert(std::size(instance_of) == kTypes.size());
  std::vector<HwResource> out;
  if (cpus.empty()) return out;
  for (std::size_t t = 0; t < kTypes.size(); ++t) {
    if (auto common = common_instance(cpus, instance_of[t])) {
      out.push_back({std::string(kTypes[t]), *common});
    }
  }
  return out;
}

std::span<const std::string_view> hw_resource_types() { return kTypes; }

std::vector<HwResource> hw_resources_now() {
  // A set as large as the kernel's (more than cpu_set_t's 1024 CPUs on
  // large machines: sched_getaffinity refuses a smaller one).
  std::vector<int> cpus;
  for (int n = CPU_SETSIZE; n <= 1 << 18 && cpus.empty(); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    const std::size_t bytes = CPU_ALLOC_SIZE(n);
    if (set != nullptr && sched_getaffinity(0, bytes, set) == 0) {
      for (int c = 0; c < n; ++c) {
        if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
      }
    }
    CPU_FREE(set);
  }
  return hw_resources("/sys", cpus);
}

int hw_instance(const std::vector<HwResource>& resources, std::string_view type) {
  constexpr std::string_view kPrefix = "hwloc://";
  if (type.substr(0, kPrefix.size()) == kPrefix) type.remove_prefix(kPrefix.size());
  for (const HwResource& r : resources) {
    if (std::string_view(r.type).substr(kPrefix.size()) == type) return r.instance;
  }
  return -1;
}

}  // namespace mpi
