// Where lapirun binds ranks: the pure placement on made-up machines, then
// real ranks reading their own CPU mask (/proc/self/status) under
// --bind-to core, hwthread and none, with --report-bindings saying the same.
#include "runtime/internal/binding.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/runtime/subprocess.hpp"

using lapis::runtime::BindTo;
using lapis::runtime::internal::CpuTopology;
using lapis::runtime::internal::cpus_for_rank;
using lapis::runtime::internal::describe_binding;
using lapis::runtime::internal::read_topology;
using lapis::runtime::internal::resolve_binding;
using namespace lapis::runtime::testing;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Two cores of two hardware threads each (CPUs 0,2 and 1,3, as Linux numbers them).
const CpuTopology kTwoByTwo{{{0, 2}, {1, 3}}};

}  // namespace

TEST_CASE("placement: round-robin over cores or hardware threads, wrapping") {
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::core, 0) == std::vector<int>{0, 2});
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::core, 1) == std::vector<int>{1, 3});
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::core, 2) == std::vector<int>{0, 2});
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::hwthread, 1) == std::vector<int>{2});
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::hwthread, 4) == std::vector<int>{0});
  CHECK(cpus_for_rank(kTwoByTwo, BindTo::none, 0).empty());
  CHECK(cpus_for_rank(CpuTopology{}, BindTo::core, 0).empty());
  CHECK(describe_binding(kTwoByTwo, BindTo::core, 1) == "rank 1 bound to core 1 (cpus 1,3)");
  CHECK(describe_binding(kTwoByTwo, BindTo::hwthread, 3) == "rank 3 bound to hwthread 3");
  CHECK(describe_binding(kTwoByTwo, BindTo::none, 0) == "rank 0 not bound");
}

TEST_CASE("the default binds to cores only when every rank gets one") {
  CHECK(resolve_binding(BindTo::automatic, 2, kTwoByTwo) == BindTo::core);
  CHECK(resolve_binding(BindTo::automatic, 3, kTwoByTwo) == BindTo::none);
  CHECK(resolve_binding(BindTo::automatic, 1, CpuTopology{}) == BindTo::none);
  CHECK(resolve_binding(BindTo::hwthread, 8, kTwoByTwo) == BindTo::hwthread);  // asked for: kept
}

TEST_CASE("real ranks run on the CPUs lapirun reports") {
  const CpuTopology machine = read_topology();
  REQUIRE(!machine.cores.empty());
  const int ranks = static_cast<int>(machine.cores.size());
  for (const char* bind : {"core", "hwthread", "none"}) {
    CAPTURE(bind);
    const Outcome outcome =
        run({{lapirun_path(), "-n", std::to_string(ranks), "--bind-to", bind, "--report-bindings",
              "--tag-output", "sh", "-c", "grep Cpus_allowed_list /proc/self/status"},
             {},
             60});
    INFO(describe(outcome));
    REQUIRE(outcome.status == 0);
    const BindTo mode = std::string(bind) == "core"       ? BindTo::core
                        : std::string(bind) == "hwthread" ? BindTo::hwthread
                                                          : BindTo::none;
    for (int rank = 0; rank < ranks; ++rank) {
      CAPTURE(rank);
      CHECK(contains(outcome.err, "lapirun: " + describe_binding(machine, mode, rank)));
      const std::vector<int> cpus = cpus_for_rank(machine, mode, rank);
      if (cpus.empty()) continue;  // unbound: the launcher's own mask
      std::string list;
      for (int cpu : cpus) list += (list.empty() ? "" : ",") + std::to_string(cpu);
      // One CPU, or consecutive ones the kernel prints as a range.
      const bool single = cpus.size() == 1;
      const std::string expected = single ? list : std::to_string(cpus.front()) + "-" + std::to_string(cpus.back());
      const bool shown = contains(outcome.out, "[" + std::to_string(rank) + "] Cpus_allowed_list:\t" + expected) ||
                         contains(outcome.out, "[" + std::to_string(rank) + "] Cpus_allowed_list:\t" + list);
      CHECK_MESSAGE(shown, "expected CPUs ", list);
    }
  }
}
