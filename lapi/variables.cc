#include "lapi/variables.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lapi {
namespace {

// Sorted by layer, then as a reader meets them.
constexpr std::array kVariables = {
    Variable{"LAPIS_MODE", "polling", "core",
             "`polling` or `interrupt` (C API default: interrupt, as IBM LAPI)"},
    Variable{"LAPIS_POLICY", "inline", "core", "completion policy: `inline`, `thread`, `fiber`"},
    Variable{"LAPIS_AM_EAGER_LIMIT", "8192", "core",
             "Amsend data of at least this many bytes goes by UCX rendezvous"},
    Variable{"LAPIS_ERROR_CHECK", "1", "core", "`0` skips argument validation on the hot path"},
    Variable{"LAPIS_SHM", "1", "core",
             "`0`: small Amsends to tasks on this node go through UCX, not the shared-memory rings"},
    Variable{"LAPIS_SPLIT_COPY", "auto", "core",
             "large Amsends to tasks on this node copied by both tasks: `auto` unless the host "
             "has more tasks than cores, `1` always, `0` never (UCX's rendezvous pulls alone)"},
    Variable{"LAPIS_STAGED_COPY", "1", "core",
             "large Amsends with an origin counter to a task on this node (what split copy would "
             "take, and from 16 KiB below its threshold; where a cross-memory read is cheap and "
             "checksums are off, only below 96 KiB, and not at all while large Amsends go both "
             "ways) go through the target's staging area, "
             "64 KiB chunks copied in and out at once; with `LAPIS_CHECKSUM=crc32c` a CRC per "
             "chunk taken beside the copies (`0`: split copy and UCX, with checksums a CRC pass "
             "of its own at each end)"},
    Variable{"LAPIS_SPLIT_MIN", "0 (MPI: 16384, or the eager limit where a cross-memory read is slow)",
             "core",
             "split copy takes Amsend data from this many bytes up (16384 at least; `0`: the "
             "eager limit); set, it replaces the MPI layer's start-up timing (see Split copy "
             "on a node)"},
    Variable{"LAPIS_CHECKSUM", "none", "core",
             "`crc32c`: end-to-end CRC32C on all user data, damaged transfers repeated (see the "
             "core section)"},
    Variable{"LAPIS_FAULT_CORRUPT", "unset", "core",
             "tests: `PATH[,PATH…]:N` flips a bit in one transfer in N on `shm`, `eager`, `rndv`, "
             "`split`, `put`, `get`, `rmw` or `all`; needs `LAPIS_CHECKSUM=crc32c`"},
    Variable{"LAPIS_TAKEOVER_GRACE_US", "50", "core",
             "interrupt mode: µs out of the library's waits before the progress thread takes over "
             "(1..10000000)"},
    Variable{"LAPIS_PROGRESS_NICE", "-20", "core",
             "interrupt mode: the progress thread's nice value (-20..19); below the process's "
             "needs CAP_SYS_NICE or RLIMIT_NICE, else the lowest permitted"},
    Variable{"LAPIS_UCX_POLL_EVERY", "16", "core",
             "skip poll: while UCX is quiet (no event in 256 polls) and shared-memory rings are "
             "watched, progress UCX once every N polls (1..4096; `1`: every poll)"},
    Variable{"LAPIS_DEBUG", "unset", "core",
             "print refused remote requests, checksum mismatches and (at `term`) checksum totals"},
    Variable{"LAPIS_MPI_VARIANT", "enhanced", "mpi engine",
             "the MPI-LAPI paper's `base`, `counters` or `enhanced` protocol"},
    Variable{"LAPIS_EAGER_LIMIT", "131072", "mpi engine",
             "MPI messages of at least this many bytes go by rendezvous"},
    Variable{"LAPIS_EARLY_ARRIVAL_MAX", "32m", "mpi engine",
             "a receiver's memory for messages that arrive before their receive, all senders "
             "together"},
    Variable{"LAPIS_HELD_SEND_MAX", "128m", "mpi engine",
             "memory a sender spends on copies of eager sends waiting for flow-control credit; past "
             "it sends wait (see `mpcpi/README.md`)"},
    Variable{"LAPIS_DIRECT_RECV", "1", "mpi engine",
             "interrupt mode: a nonblocking receive from a task on this node, posted alone, is "
             "announced to it and its send writes straight into the buffer (see `mpcpi/README.md`)"},
    Variable{"LAPIS_COLL_SHM", "auto", "mpi",
             "`off`: no shared-memory collectives (blocking Barrier, Bcast, Reduce, Allreduce and "
             "regular Gather, Allgather, Alltoall of any size, in 64 KiB chunks, regular Scatter up "
             "to 64 KiB, through a segment every rank of a one-host communicator maps; polling mode "
             "only)"},
    Variable{"LAPIS_COLL_BCAST", "auto", "mpi",
             "`binomial`, `scatter_allgather` (see `mpi/README.md` for each collective's choice)"},
    Variable{"LAPIS_COLL_REDUCE", "auto", "mpi", "`binomial`, `linear`"},
    Variable{"LAPIS_COLL_ALLREDUCE", "auto", "mpi",
             "`recursive_doubling`, `rabenseifner`, `reduce_bcast`"},
    Variable{"LAPIS_COLL_ALLGATHER", "auto", "mpi", "`recursive_doubling`, `ring`"},
    Variable{"LAPIS_COLL_ALLTOALL", "auto", "mpi", "`linear`, `pairwise`"},
    Variable{"LAPIS_TIMEOUT", "none", "launcher",
             "`lapirun`'s default `--timeout` (beyond ~30 years: no deadline); unset, MPICH's "
             "`MPIEXEC_TIMEOUT` is read the same way"},
    Variable{"LAPIS_BOOTSTRAP_TIMEOUT", "none", "launcher",
             "seconds a rank waits for the launcher's rendezvous to answer"},
    Variable{"LAPIS_RANK", "set by lapirun", "launcher", "this rank's number (do not set by hand)"},
    Variable{"LAPIS_SIZE", "set by lapirun", "launcher", "the number of ranks (do not set by hand)"},
    Variable{"LAPIS_RENDEZVOUS", "set by lapirun", "launcher",
             "the launcher's rendezvous socket (do not set by hand)"},
    Variable{"LAPIS_JOB_ID", "set by lapirun", "launcher",
             "the job's id, in its `/dev/shm` file names (do not set by hand)"},
    Variable{"LAPIS_JOB_SECRET", "set by lapirun", "launcher",
             "a job across hosts: the secret each rank proves to the TCP rendezvous (do not set by "
             "hand)"},
    Variable{"LAPIS_CONTINUE_ON_FAILURE", "set by lapirun", "launcher",
             "`--continue-on-failure`: the rank hears of failed ranks and goes on (do not set by hand)"},
    Variable{"LAPIS_APPNUM", "set by lapirun", "launcher",
             "a job of several programs (`lapirun -n 1 a : -n 2 b`): the index of this rank's program, "
             "`MPI_APPNUM` (do not set by hand)"},
    Variable{"LAPIS_LAUNCH_AGENT", "ssh", "launcher",
             "how `lapirun` starts ranks on other hosts: `AGENT HOST env VAR=VALUE... program args`"},
    Variable{"LAPIS_LINK_TIMEOUT", "2", "launcher",
             "a job across hosts: seconds (1-3600) a rank's host may stay silent before `lapirun` counts "
             "the rank as lost (TCP keepalive on the rendezvous connection); a rank cut off from the "
             "launcher ends itself after twice as long"},
    Variable{"LAPIS_RENDEZVOUS_ADDR", "route to the first other host", "launcher",
             "a job across hosts: this host's IPv4 address the rendezvous listens on (only there)"},
    Variable{"LAPIS_TRANSPORTS", "shm,tcp", "core",
             "the methods between tasks: `shm` (within a host: the shared-memory rings, split copy and "
             "UCX's shared memory), `tcp` (UCX over TCP); `tcp` alone sends within a host over "
             "loopback, `shm` alone cannot reach another host (an init error). `UCX_TLS` wins over it"},
    Variable{"LAPIS_PATHS", "unset", "core",
             "per-pair methods, `HOSTA-HOSTB=shm` or `=tcp`, `;`-separated, `*` any host, the last match "
             "wins (`tcp` within a host too: UCX over TCP); a rule naming a host not in the job, or `shm` "
             "between two hosts, is an init error"},
    Variable{"LAPIS_NET_IF", "unset", "core",
             "the network interface UCX uses (must exist and be up); unset: loopback on one host, the "
             "interface that reaches the launcher across hosts, UCX's choice under PMIx"},
    Variable{"LAPIS_LINKS", "unset", "core",
             "striping (LA-MPI): Amsends of `LAPIS_STRIPE_MIN` bytes or more to a task on another host "
             "go in fragments over these interfaces (`IF[,IF...]`, up to 4), those on a subnet the two "
             "tasks share, one TCP connection each; a link that fails (`LAPIS_LINK_TIMEOUT`) is "
             "reported once and its fragments go over the others (UCX when none is left)"},
    Variable{"LAPIS_STRIPE_MIN", "131072", "core",
             "with `LAPIS_LINKS`: the smallest Amsend striped over the links (bytes, at least 4096)"},
    Variable{"LAPIS_UNIVERSE_SIZE", "the job's size", "mpi",
             "`MPI_UNIVERSE_SIZE`: how many processes the program may count on in all, at least the "
             "job's size (`MPI_Comm_spawn` itself starts any number)"},
    Variable{"LAPIS_SPAWN_PORT", "set by MPI_Comm_spawn", "mpi",
             "the port a spawned job's ranks connect back to in `MPI_Init` (do not set by hand)"},
    Variable{"LAPIS_MEMORY_ALLOC_KINDS", "unset", "mpi",
             "the memory kinds the world model asks for (MPI 4.1; lapirun --memory-alloc-kinds sets "
             "it); MPI_Comm_get_info says which are supported"},
    Variable{"LAPIS_NAME_SERVER", "set by lapirun", "mpi",
             "the name service of `MPI_Publish_name`, `MPI_Lookup_name` and `MPI_Unpublish_name`: "
             "lapirun serves one per job (shared with the jobs it spawns); jobs started apart share "
             "a `lapis_names` daemon's (the port it prints at start); empty: none"},
    Variable{"LAPIS_VERBOSE", "0", "lapi", "`1`: each task prints the path to each peer (self, shm, ucx)"},
    Variable{"LAPIS_LAPIRUN", "next to mpirun", "tools",
             "the `lapirun` that `mpirun` starts, and that `MPI_Comm_spawn` starts (lapirun sets it "
             "to itself for its ranks; elsewhere `lapirun` on `PATH`)"},
    Variable{"LAPIS_MPICC_CC", "cc", "tools", "the C compiler `mpicc` runs"},
    Variable{"LAPIS_MPICXX_CXX", "c++", "tools", "the C++ compiler `mpicxx` runs"},
    Variable{"LAPIS_SOAK_MAX_GROWTH_MIB", "64", "tools",
             "`tools/soak.sh`: a rank's allowed RSS growth after warm-up"},
};

// Levenshtein distance, for "did you mean".
std::size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::span<const Variable> variables() { return kVariables; }

const Variable* find_variable(std::string_view name) {
  for (const Variable& v : kVariables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::vector<UnknownVariable> unknown_variables(char** environment) {
  std::vector<UnknownVariable> unknown;
  for (char** entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    if (!name.starts_with("LAPIS_") || find_variable(name) != nullptr) continue;
    UnknownVariable u{std::string(name), ""};
    std::size_t best = name.size() / 3 + 1;  // farther than this is no typo
    for (const Variable& v : kVariables) {
      if (const std::size_t d = edits(name, v.name); d < best) {
        best = d;
        u.closest = std::string(v.name);
      }
    }
    unknown.push_back(std::move(u));
  }
  return unknown;
}

std::string variables_table() {
  std::string table = "| variable | default | layer | meaning |\n|---|---|---|---|\n";
  for (const Variable& v : kVariables) {
    table += "| `" + std::string(v.name) + "` | " +
             (v.default_value.find(' ') == std::string_view::npos && v.default_value != "unset"
                  ? "`" + std::string(v.default_value) + "`"
                  : std::string(v.default_value)) +
             " | " + std::string(v.layer) + " | " + std::string(v.doc) + " |\n";
  }
  return table;
}

void warn_unknown_variables() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  const char* rank = std::getenv("LAPIS_RANK");
  if (rank != nullptr && std::strcmp(rank, "0") != 0) return;
  for (const UnknownVariable& u : unknown_variables(environ)) {
    if (u.closest.empty()) {
      std::fprintf(stderr, "lapis: warning: %s is not a Lapis variable (lapis_info lists them)\n",
                   u.name.c_str());
    } else {
      std::fprintf(stderr, "lapis: warning: %s is not a Lapis variable; did you mean %s?\n",
                   u.name.c_str(), u.closest.c_str());
    }
  }
}

}  // namespace lapi
