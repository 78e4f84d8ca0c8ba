// hw_resources.hpp over a made-up sysfs: two packages of two cores of two
// hardware threads, a NUMA node per package, an L3 per package, an L2 and
// L1 (data and instruction) per core.
#include "mpi/internal/hw_resources.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using mpi::HwResource;
using mpi::hw_instance;
using mpi::hw_resources;
using mpi::parse_cpu_list;

void put(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

std::string list(int lo, int hi) { return std::to_string(lo) + "-" + std::to_string(hi); }

// CPUs 0-7: package p = cpu / 4, core = cpu / 2 (its threads 2k and 2k+1).
std::string make_sysfs(bool caches) {
  const fs::path root = fs::path(std::getenv("TEST_TMPDIR")) / (caches ? "sys_c" : "sys");
  fs::remove_all(root);
  for (int cpu = 0; cpu < 8; ++cpu) {
    const fs::path d = root / "devices/system/cpu" / ("cpu" + std::to_string(cpu));
    const int package = cpu / 4, core_first = cpu / 2 * 2;
    put(d / "topology/physical_package_id", std::to_string(package));
    put(d / "topology/thread_siblings_list", list(core_first, core_first + 1));
    if (!caches) continue;
    put(d / "cache/index0/level", "1");
    put(d / "cache/index0/type", "Data");
    put(d / "cache/index0/shared_cpu_list", list(core_first, core_first + 1));
    put(d / "cache/index1/level", "1");
    put(d / "cache/index1/type", "Instruction");
    put(d / "cache/index1/shared_cpu_list", "0-7");  // would merge everything if taken
    put(d / "cache/index2/level", "2");
    put(d / "cache/index2/type", "Unified");
    put(d / "cache/index2/shared_cpu_list", list(core_first, core_first + 1));
    put(d / "cache/index3/level", "3");
    put(d / "cache/index3/type", "Unified");
    put(d / "cache/index3/shared_cpu_list", list(package * 4, package * 4 + 3));
  }
  put(root / "devices/system/node/node0/cpulist", "0-3");
  put(root / "devices/system/node/node1/cpulist", "4-7");
  put(root / "devices/system/node/online", "0-1");  // not a node directory
  return root.string();
}

std::string describe(const std::vector<HwResource>& rs) {
  std::string s;
  for (const HwResource& r : rs) s += r.type + "=" + std::to_string(r.instance) + " ";
  return s;
}

}  // namespace

TEST_CASE("sysfs CPU lists") {
  CHECK(parse_cpu_list("0-3,8,10-11") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list("5") == std::vector<int>{5});
  CHECK(parse_cpu_list("").empty());
  CHECK(parse_cpu_list("3-1").empty());
  CHECK(parse_cpu_list("1,x").empty());
  CHECK(parse_cpu_list("1-").empty());
  CHECK(parse_cpu_list("-1").empty());
  CHECK(parse_cpu_list("0-99999999").empty());
}

TEST_CASE("a process on one hardware thread lies in one resource of every type") {
  const auto rs = hw_resources(make_sysfs(true), {5});
  INFO(describe(rs));
  REQUIRE(rs.size() == 8);
  CHECK(rs.front().type == "hwloc://Machine");
  CHECK(rs.back().type == "hwloc://PU");
  CHECK(hw_instance(rs, "hwloc://Machine") == 0);
  CHECK(hw_instance(rs, "hwloc://Package") == 1);
  CHECK(hw_instance(rs, "hwloc://NUMANode") == 1);
  CHECK(hw_instance(rs, "hwloc://L3Cache") == 4);
  CHECK(hw_instance(rs, "hwloc://L2Cache") == 4);
  CHECK(hw_instance(rs, "hwloc://L1Cache") == 4);
  CHECK(hw_instance(rs, "hwloc://Core") == 4);
  CHECK(hw_instance(rs, "hwloc://PU") == 5);
  CHECK(hw_instance(rs, "Core") == 4);  // MPICH's spelling
  CHECK(hw_instance(rs, "hwloc://Bogus") == -1);
  CHECK(hw_instance(rs, "") == -1);
}

TEST_CASE("a process bound to a core, a package, or across packages") {
  const std::string sys = make_sysfs(true);
  auto rs = hw_resources(sys, {2, 3});
  INFO(describe(rs));
  CHECK(hw_instance(rs, "hwloc://Core") == 2);
  CHECK(hw_instance(rs, "hwloc://L1Cache") == 2);  // the data cache, not the shared i-cache
  CHECK(hw_instance(rs, "hwloc://PU") == -1);
  rs = hw_resources(sys, {0, 1, 2, 3});
  CHECK(hw_instance(rs, "hwloc://Package") == 0);
  CHECK(hw_instance(rs, "hwloc://NUMANode") == 0);
  CHECK(hw_instance(rs, "hwloc://Core") == -1);
  rs = hw_resources(sys, {3, 4});
  CHECK(hw_instance(rs, "hwloc://Machine") == 0);
  CHECK(hw_instance(rs, "hwloc://Package") == -1);
  CHECK(hw_instance(rs, "hwloc://L3Cache") == -1);
  CHECK(rs.size() == 8);  // every type still listed ("false" in the info)
}

TEST_CASE("types sysfs says nothing about are left out") {
  const auto rs = hw_resources(make_sysfs(false), {6});
  INFO(describe(rs));
  CHECK(rs.size() == 5);  // Machine, Package, NUMANode, Core, PU
  CHECK(hw_instance(rs, "hwloc://L3Cache") == -1);
  CHECK(hw_instance(rs, "hwloc://Core") == 6);
  CHECK(hw_resources("/nonexistent", {0}).size() == 2);  // Machine and PU need no file
  CHECK(hw_resources(make_sysfs(false), {}).empty());
}
