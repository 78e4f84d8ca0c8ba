// One job of mpi_paper_latency: MPI (variant from LAPIS_MPI_VARIANT) and a
// second, raw lapi context (benchmarks' LapisSide) in the same two
// processes. For every size, `inner_reps` rounds of raw Put, raw Amsend and
// MPI ping-pong, the starting one rotating per round; rank 0 prints the
// median of each.

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <mpi.h>

#include "benchmarks/lapis_side.hpp"
#include "benchmarks/paper/paper.hpp"
#include "benchmarks/report.hpp"
#include "benchmarks/timing.hpp"

namespace lapis::benchmarks::paper {
namespace {

// MPI_Send/MPI_Recv ping-pong of `size` bytes; seconds of the timed round
// trips (meaningful on rank 0).
double mpi_pingpong(int rank, void* sbuf, void* rbuf, std::size_t size, int warmup, int iters) {
  const int count = static_cast<int>(size);
  // Read at every call, so that LTO cannot specialise MPI_Send and
  // MPI_Recv for constant arguments (a program calling libmpi.so.12 gets
  // no such clone).
  volatile MPI_Datatype type_v = MPI_BYTE;
  volatile MPI_Comm comm_v = MPI_COMM_WORLD;
  volatile int tag_v = 1;
  volatile int peer_v = rank == 0 ? 1 : 0;
  MPI_Status* volatile status_v = MPI_STATUS_IGNORE;
  const auto ping = [&] {
    MPI_Send(sbuf, count, type_v, peer_v, tag_v, comm_v);
    MPI_Recv(rbuf, count, type_v, peer_v, tag_v, comm_v, status_v);
  };
  const auto pong = [&] {
    MPI_Recv(rbuf, count, type_v, peer_v, tag_v, comm_v, status_v);
    MPI_Send(sbuf, count, type_v, peer_v, tag_v, comm_v);
  };
  return rank == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

std::string variant_from_env() {
  const char* v = std::getenv("LAPIS_MPI_VARIANT");
  return v != nullptr && *v != '\0' ? v : "enhanced";  // mpcpi's default
}

lapi::ProgressMode mode_from_env() {
  const char* m = std::getenv("LAPIS_MODE");
  return m != nullptr && std::string(m) == "interrupt" ? lapi::ProgressMode::interrupt
                                                       : lapi::ProgressMode::polling;
}

enum class Kind { raw_put, raw_amsend, mpi };
constexpr Kind kKinds[] = {Kind::raw_put, Kind::raw_amsend, Kind::mpi};

class Child {
 public:
  Child(const PaperOptions& options, int rank, std::size_t max_size)
      : options_(options),
        rank_(rank),
        raw_(max_size),
        mode_(mode_from_env()),
        variant_(variant_from_env()) {
    raw_.set_mode(mode_);
    raw_.set_policy(lapi::CompletionPolicy::inline_run);  // raw Amsend: handler inline
    MPI_Alloc_mem(static_cast<MPI_Aint>(max_size), MPI_INFO_NULL, &sbuf_);
    MPI_Alloc_mem(static_cast<MPI_Aint>(max_size), MPI_INFO_NULL, &rbuf_);
    raw_.barrier();
  }

  void run() {
    for (const std::size_t size : options_.common.sizes) {
      const int iters = iterations_for(options_.common, BenchKind::latency, size, mode_);
      const int warmup = warmup_for(iters);
      std::vector<double> us[3];
      for (int rep = 0; rep < options_.inner_reps; ++rep) {
        for (int k = 0; k < 3; ++k) {
          const Kind kind = kKinds[(k + rep) % 3];
          MPI_Barrier(MPI_COMM_WORLD);
          const double seconds = measure(kind, size, warmup, iters);
          us[static_cast<int>(kind)].push_back(seconds / iters / 2 * 1e6);
        }
      }
      if (rank_ != 0) continue;
      for (const Kind kind : kKinds) {
        const Stats s = summarize(us[static_cast<int>(kind)], /*higher_is_better=*/false);
        fmt::print(R"({{"bench":"paper_child","variant":"{}","mode":"{}","size":{},"us":{:.4f}}})"
                   "\n",
                   name(kind), mode_name(mode_), size, s.median);
      }
      std::fflush(stdout);
    }
  }

  // Collective: the raw context first (while MPI still runs), then MPI.
  void finish() {
    MPI_Barrier(MPI_COMM_WORLD);
    raw_.barrier();
    raw_.term();
    MPI_Free_mem(sbuf_);
    MPI_Free_mem(rbuf_);
  }

 private:
  double measure(Kind kind, std::size_t size, int warmup, int iters) {
    switch (kind) {
      case Kind::raw_put:
        return raw_.put_pingpong(size, warmup, iters);
      case Kind::raw_amsend:
        return raw_.am_pingpong(size, warmup, iters);
      case Kind::mpi:
        return mpi_pingpong(rank_, sbuf_, rbuf_, size, warmup, iters);
    }
    return 0;
  }

  std::string name(Kind kind) const {
    switch (kind) {
      case Kind::raw_put:
        return "raw_put";
      case Kind::raw_amsend:
        return "raw_amsend";
      case Kind::mpi:
        return variant_;
    }
    return "?";
  }

  const PaperOptions& options_;
  int rank_;
  LapisSide raw_;
  lapi::ProgressMode mode_;
  std::string variant_;
  void* sbuf_ = nullptr;
  void* rbuf_ = nullptr;
};

}  // namespace

int run_child(const PaperOptions& options) {
  int argc = 0;
  char** argv = nullptr;
  MPI_Init(&argc, &argv);
  int rank = -1;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fmt::print(stderr, "{}: a job needs exactly 2 ranks, got {}\n", kProgram, size);
    MPI_Finalize();
    return 1;
  }
  std::size_t max_size = 1;
  for (const std::size_t s : options.common.sizes) max_size = std::max(max_size, s);
  try {
    Child child(options, rank, max_size);
    child.run();
    child.finish();
  } catch (const std::exception& e) {
    fmt::print(stderr, "{} (rank {}): error: {}\n", kProgram, rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  MPI_Finalize();
  return 0;
}

}  // namespace lapis::benchmarks::paper
