#include "mpi/internal/runtime.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "mpi.h"
#include "mpi/internal/coll/select.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {
namespace {

// Deliberately not destroyed at process exit: tearing a context down is
// collective, so a program that exits without MPI_Finalize (a failed check,
// exit() in one rank) must not block in a static destructor.
std::unique_ptr<lapi::Context>& g_context = *new std::unique_ptr<lapi::Context>;
std::unique_ptr<mpcpi::Engine>& g_engine = *new std::unique_ptr<mpcpi::Engine>;

}  // namespace

lapi::Context& lapi_context() { return *g_context; }

namespace {
std::atomic<std::uint64_t> g_handler_writes{0};
}  // namespace

void publish_handler_writes() { g_handler_writes.fetch_add(1, std::memory_order_release); }
void observe_handler_writes() { (void)g_handler_writes.load(std::memory_order_acquire); }
mpcpi::Engine& engine() { return *g_engine; }

int engine_status_class(mpcpi::Errc code) {
  switch (code) {
    case mpcpi::Errc::success: return MPI_SUCCESS;
    case mpcpi::Errc::truncate: return MPI_ERR_TRUNCATE;
    case mpcpi::Errc::buffer: return MPI_ERR_BUFFER;
    case mpcpi::Errc::ready_no_match: return MPI_ERR_OTHER;
    case mpcpi::Errc::invalid_rank: return MPI_ERR_RANK;
    case mpcpi::Errc::invalid_tag: return MPI_ERR_TAG;
    case mpcpi::Errc::invalid_count: return MPI_ERR_COUNT;
    case mpcpi::Errc::invalid_request: return MPI_ERR_REQUEST;
    case mpcpi::Errc::invalid_arg: return MPI_ERR_ARG;
    case mpcpi::Errc::no_memory: return MPI_ERR_NO_MEM;
    case mpcpi::Errc::transport: return MPI_ERR_OTHER;
    case mpcpi::Errc::terminated: return MPI_ERR_OTHER;
    case mpcpi::Errc::peer_failed: return MPIX_ERR_PROC_FAILED;
    case mpcpi::Errc::revoked: return MPIX_ERR_REVOKED;
    case mpcpi::Errc::any_source_failed: return MPIX_ERR_PROC_FAILED;  // _PENDING for requests (request.cc)
  }
  return MPI_ERR_INTERN;
}

int engine_error(mpcpi::Errc code) {
  if (code == mpcpi::Errc::success) return MPI_SUCCESS;
  std::string_view detail = mpcpi::last_error_detail();
  if (detail.empty()) {
    set_error_detail(std::string(mpcpi::errc_name(code)));
  } else {
    set_error_detail(std::string(mpcpi::errc_name(code)) + ": " + std::string(detail));
  }
  return engine_status_class(code);
}

int start_runtime() {
  lapi::Config config;
  // Every MPCPI eager message (below its 128 KiB eager limit) goes as a UCX
  // eager Amsend rather than a UCX rendezvous: on one node UCX's copy
  // in/copy out pipeline beats its single-copy (CMA) pull there, and the
  // pull's extra round trip costs 3-4 µs (mpi_latency 8-32 KiB: 4.4-6.5 µs
  // → 0.5-5.4; mpi_bw 16-64 KiB: 4.3-10 GB/s → 20-29). LAPIS_AM_EAGER_LIMIT
  // still overrides it.
  config.eager_limit = 128 * 1024;
  // ... except to tasks that split copy reaches (same node, cores to
  // spare), which take 16 KiB and more that way: one copy, shared by both
  // tasks, instead of two. 2026-11-29, LTO, each way alternated 2-3 times:
  // mpi_latency 16 KiB 4.4-4.7 → 2.5-2.8 µs, 64 KiB 12.6-13.4 → 5.0-6.4
  // (Open MPI 2.5-3.0 and 5.6-5.9); mpi_bw 16 / 64 KiB 7.5 / 8.2 → 11.3 /
  // 14.5 GB/s, both ways 7.2 / 8.0 → 10.4 / 20.7.
  config.split_min = 16 * 1024;
  // Where a cross-memory read costs many copies (an AMD Zen 5 VM: about 15
  // memcpys of 16 KiB), UCX's eager path wins below the eager limit instead
  // (lapi/internal/split_copy.cc, raise_split_min_if_cma_slow).
  config.split_min_auto = true;
  config.leave_call = "MPI_Finalize";
  if (lapi::Status st = lapi::Config::from_env(config); !st.ok()) {
    return fail(MPI_ERR_OTHER, "lapi configuration: {}", st.message());
  }
  if (lapi::Status st = lapi::Context::init(config, g_context); !st.ok()) {
    return fail(MPI_ERR_OTHER, "starting the lapi context: {}", st.message());
  }
  bool coll_shm = true;
  if (int rc = read_coll_shm(coll_shm); rc != MPI_SUCCESS) return rc;
  mpcpi::Options options;
  if (mpcpi::Errc e = mpcpi::Options::from_env(options); e != mpcpi::Errc::success) {
    return engine_error(e);
  }
  if (mpcpi::Errc e = mpcpi::Engine::create(*g_context, options, g_engine);
      e != mpcpi::Errc::success) {
    return engine_error(e);
  }
  return MPI_SUCCESS;
}

int stop_runtime() {
  int rc = MPI_SUCCESS;
  if (g_engine) rc = engine_error(g_engine->finalize());
  if (g_context) {
    lapi::Status st = g_context->term();
    if (!st.ok() && rc == MPI_SUCCESS) {
      rc = fail(MPI_ERR_OTHER, "terminating the lapi context: {}", st.message());
    }
  }
  // The engine goes only after term(): its handlers may still run during the
  // final fence, and term() joins lapi's handler thread (which may be in a
  // completion handler of the engine until then).
  g_engine.reset();
  g_context.reset();
  return rc;
}

}  // namespace mpi
