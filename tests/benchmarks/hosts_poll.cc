// Nexus' skip poll, measured: the 8 B MPI latency between two ranks on one test host
// (Lapis' shared-memory ring) in a job that also has two idle ranks on a second test host,
// reached through UCX over TCP, with UCX progressed once every 16 polls while it is quiet
// (the default) and on every poll (LAPIS_UCX_POLL_EVERY=1); and, for reference, the same
// two ranks in a job of their own. Settings alternate, repetition by repetition, in one run.
//
//   bazel run //tests/benchmarks:hosts_poll -- [--reps N]      (needs root: test hosts)
//
// One JSON line per measurement, then a table of medians. The namespaces share this
// machine's boot id, so UCX would join the hosts through its own shared memory: the job
// runs with UCX_TLS=tcp,self, which makes the other host's ranks real TCP peers.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/runtime/subprocess.hpp"
#include "tests/support/test_hosts.hpp"

namespace {

using lapis::runtime::testing::Command;
using lapis::runtime::testing::describe;
using lapis::runtime::testing::lapirun_path;
using lapis::runtime::testing::Outcome;
using lapis::runtime::testing::run;
using lapis::runtime::testing::runfile;
using lapis::testing::TestHosts;

struct Setting {
  const char* name;
  const char* places;  // "-H" list, %0 and %1 standing for the two hosts
  const char* poll_every;  // LAPIS_UCX_POLL_EVERY, or null for the default
};

std::string places_of(const Setting& s, const TestHosts& hosts) {
  std::string out = s.places;
  for (int h = 0; h < 2; ++h) {
    const std::string key = "%" + std::to_string(h);
    for (auto at = out.find(key); at != std::string::npos; at = out.find(key)) out.replace(at, 2, hosts.name(h));
  }
  return out;
}

// The "us" of mpi_latency's JSON line, or a negative value.
double latency_of(const std::string& out) {
  const auto at = out.find("\"us\":");
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + 5);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: hosts_poll [--reps N]\n");
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "hosts_poll: --reps must be at least 1\n");
    return 2;
  }
  if (std::getenv("TEST_SRCDIR") == nullptr) ::setenv("TEST_SRCDIR", (std::string(argv[0]) + ".runfiles").c_str(), 1);
  TestHosts hosts(2);
  if (!hosts.available()) {
    std::fprintf(stderr, "hosts_poll: no test hosts: %s\n", hosts.why_not().c_str());
    return 1;
  }
  const Setting settings[] = {
      {"alone", "%0:2", nullptr},
      {"tcp_peers_skip16", "%0:2,%1:2", nullptr},
      {"tcp_peers_every_poll", "%0:2,%1:2", "1"},
  };
  std::map<std::string, std::vector<double>> figures;
  for (int rep = 0; rep < reps; ++rep) {
    for (const Setting& s : settings) {
      std::vector<std::string> cmd = hosts.enter(0);
      cmd.insert(cmd.end(), {lapirun_path(), "--timeout", "60", "-H", places_of(s, hosts), "-x", "UCX_TLS=tcp,self"});
      if (s.poll_every != nullptr) cmd.insert(cmd.end(), {"-x", std::string("LAPIS_UCX_POLL_EVERY=") + s.poll_every});
      cmd.insert(cmd.end(), {runfile("benchmarks/mpi_latency"), "--sizes", "8", "--bind", "--json"});
      const Outcome outcome = run(Command(cmd,
                                          {{"LAPIS_LAUNCH_AGENT", TestHosts::agent_path()},
                                           {"TEST_HOSTS_MAP", hosts.hosts_variable()},
                                           {"LAPIS_RENDEZVOUS_ADDR", hosts.address(0)}},
                                          90));
      const double us = latency_of(outcome.out);
      if (outcome.status != 0 || us <= 0) {
        std::fprintf(stderr, "hosts_poll: %s failed: %s\n", s.name, describe(outcome).c_str());
        return 1;
      }
      figures[s.name].push_back(us);
      std::printf("{\"bench\":\"hosts_poll\",\"setting\":\"%s\",\"rep\":%d,\"size\":8,\"us\":%.4f}\n", s.name, rep, us);
      std::fflush(stdout);
    }
  }
  const double base = median(figures["tcp_peers_skip16"]);
  std::printf("\n# 8 B MPI latency, ranks 0 and 1 on one test host (median of %d, us)\n", reps);
  std::printf("%-24s %10s %12s\n", "setting", "us", "vs skip16");
  for (const Setting& s : settings) {
    const double m = median(figures[s.name]);
    std::printf("%-24s %10.3f %12.2f\n", s.name, m, base > 0 ? m / base : 0);
  }
  return 0;
}
