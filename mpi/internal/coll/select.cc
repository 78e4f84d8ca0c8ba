#include "mpi/internal/coll/select.hpp"

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include <unistd.h>

#include "mpi.h"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {
namespace {

// A forced choice: -1 = automatic, else the index of the name in `names`,
// or -2 when the value is not a known name.
int forced(const char* variable, std::initializer_list<const char*> names) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0' || std::strcmp(value, "auto") == 0) return -1;
  int i = 0;
  for (const char* n : names) {
    if (std::strcmp(value, n) == 0) return i;
    ++i;
  }
  return -2;
}

// Reads the variable once per process and reports an unknown value.
template <typename Algo>
int read_choice(const char* variable, std::initializer_list<const char*> names, int& cache,
                bool& read, Algo& out, bool& is_forced) {
  if (!read) {
    cache = forced(variable, names);
    read = true;
  }
  is_forced = cache >= 0;
  if (cache == -2) {
    std::string known = "auto";
    for (const char* n : names) known += std::string(", ") + n;
    return fail(MPI_ERR_ARG, "{}={} is not one of {}", variable, std::getenv(variable), known);
  }
  if (is_forced) out = static_cast<Algo>(cache);
  return MPI_SUCCESS;
}

}  // namespace

bool coll_forced(const char* variable) { return forced(variable, {}) != -1; }

int read_coll_shm(bool& enabled) {
  const int choice = forced("LAPIS_COLL_SHM", {"off"});
  if (choice == -2) {
    return fail(MPI_ERR_ARG, "LAPIS_COLL_SHM={} is not one of auto, off",
                std::getenv("LAPIS_COLL_SHM"));
  }
  enabled = choice == -1;
  return MPI_SUCCESS;
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

int choose_bcast(std::size_t bytes, int comm_size, BcastAlgo& out) {
  static int cache;
  static bool read = false;
  bool is_forced = false;
  if (int rc = read_choice("LAPIS_COLL_BCAST", {"binomial", "scatter_allgather"}, cache, read,
                           out, is_forced)) {
    return rc;
  }
  if (!is_forced) {
    const bool scatter = comm_size >= 3 && bytes >= kBcastScatterMin &&
                         bytes / static_cast<std::size_t>(comm_size) < kBcastScatterPieceMax;
    out = scatter ? BcastAlgo::scatter_allgather : BcastAlgo::binomial;
  }
  return MPI_SUCCESS;
}

int choose_reduce(ReduceAlgo& out) {
  static int cache;
  static bool read = false;
  bool is_forced = false;
  if (int rc = read_choice("LAPIS_COLL_REDUCE", {"binomial", "linear"}, cache, read, out,
                           is_forced)) {
    return rc;
  }
  if (!is_forced) out = ReduceAlgo::binomial;
  return MPI_SUCCESS;
}

int choose_allreduce(std::size_t bytes, std::int64_t count, int comm_size, const Op& op,
                     AllreduceAlgo& out) {
  static int cache;
  static bool read = false;
  bool is_forced = false;
  if (int rc = read_choice("LAPIS_COLL_ALLREDUCE",
                           {"recursive_doubling", "rabenseifner", "reduce_bcast"}, cache, read,
                           out, is_forced)) {
    return rc;
  }
  const bool rabenseifner_fits = op.commutative && count >= floor_pow2(comm_size);
  if (!is_forced) {
    out = bytes >= kAllreduceRabenseifnerMin && rabenseifner_fits
              ? AllreduceAlgo::rabenseifner
              : AllreduceAlgo::recursive_doubling;
  } else if (out == AllreduceAlgo::rabenseifner && !rabenseifner_fits) {
    out = AllreduceAlgo::recursive_doubling;
  }
  return MPI_SUCCESS;
}

int choose_allgather(std::size_t total_bytes, int comm_size, AllgatherAlgo& out) {
  static int cache;
  static bool read = false;
  bool is_forced = false;
  if (int rc = read_choice("LAPIS_COLL_ALLGATHER", {"recursive_doubling", "ring"}, cache, read,
                           out, is_forced)) {
    return rc;
  }
  const bool pow2 = floor_pow2(comm_size) == comm_size;
  if (!is_forced) {
    out = total_bytes < kAllgatherRingMin && pow2 ? AllgatherAlgo::recursive_doubling
                                                  : AllgatherAlgo::ring;
  } else if (!pow2) {
    out = AllgatherAlgo::ring;  // recursive doubling here needs a power of two
  }
  return MPI_SUCCESS;
}

int choose_alltoall(std::size_t bytes_per_peer, AlltoallAlgo& out) {
  static int cache;
  static bool read = false;
  bool is_forced = false;
  if (int rc = read_choice("LAPIS_COLL_ALLTOALL", {"linear", "pairwise"}, cache, read, out,
                           is_forced)) {
    return rc;
  }
  if (!is_forced) {
    out = bytes_per_peer >= kAlltoallPairwiseMin && !host_oversubscribed() ? AlltoallAlgo::pairwise
                                                                           : AlltoallAlgo::linear;
  }
  return MPI_SUCCESS;
}

bool host_oversubscribed() {
  static const bool answer = [] {
    lapi::Context& ctx = lapi_context();
    std::int64_t tasks = 0;
    (void)ctx.qenv(lapi::Query::num_tasks, tasks);
    long here = 0;
    for (std::int64_t t = 0; t < tasks; ++t) {
      lapi::PathInfo info;
      if (ctx.path_of(static_cast<lapi::TaskId>(t), info).ok() && info.same_host) ++here;
    }
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && here > cores;
  }();
  return answer;
}

}  // namespace mpi
