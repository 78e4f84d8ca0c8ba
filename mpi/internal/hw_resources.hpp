#pragma once
// The hardware a process runs on, as MPI 4.1 names it for
// MPI_Get_hw_resource_info and MPI_COMM_TYPE_HW_GUIDED: resource types in
// hwloc's spelling ("hwloc://Machine", "hwloc://Package",
// "hwloc://NUMANode", "hwloc://L3Cache" ... "hwloc://Core", "hwloc://PU"),
// read from Linux's sysfs as hwloc reads them (no hwloc needed), and for
// each whether the process's CPUs all lie in one resource of that type.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpi {

struct HwResource {
  std::string type;   // "hwloc://Core"
  int instance = -1;  // the resource holding every CPU of the process; -1: none does
};

// Every type the machine describes, coarse to fine, for `cpus` (the CPUs
// the process may run on) under `sysfs` ("/sys", or a test's tree). Types
// sysfs says nothing about (caches on some virtual machines) are left out.
std::vector<HwResource> hw_resources(const std::string& sysfs, const std::vector<int>& cpus);

// Every type hw_resources can list, coarse to fine, whether or not this
// machine describes it: the same list in every process.
std::span<const std::string_view> hw_resource_types();

// The same for this process now (its CPU affinity, /sys).
std::vector<HwResource> hw_resources_now();

// The resource of `type` (hwloc://Core, or MPICH's bare "Core") holding
// every CPU of `resources`' process; -1 if none does or the type is unknown.
int hw_instance(const std::vector<HwResource>& resources, std::string_view type);

// Parses a sysfs CPU list ("0-3,8,10-11"); empty on a malformed one.
std::vector<int> parse_cpu_list(std::string_view list);

}  // namespace mpi
