// MPICH's generalized-request extension: MPIX_Grequest_start (a request with
// a poll_fn and a wait_fn) and request classes (MPIX_Grequest_class_create,
// MPIX_Grequest_class_allocate); mpi/internal/grequest.hpp says when the
// callbacks run. Their PMPIX_ names come from mpi/pmpi.py.
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

namespace {

// A class is its callbacks; classes live as long as the library (MPICH has
// no call to free one). The handle is the index plus kClassBase, so that 0
// and small integers a program forgot to set are refused.
constexpr int kClassBase = 0x5c000000;
std::vector<GRequest> g_classes;

std::shared_ptr<GRequest> with_callbacks(MPI_Grequest_query_function* query_fn,
                                         MPI_Grequest_free_function* free_fn,
                                         MPI_Grequest_cancel_function* cancel_fn,
                                         MPIX_Grequest_poll_function* poll_fn,
                                         MPIX_Grequest_wait_function* wait_fn) {
  auto g = std::make_shared<GRequest>();
  g->query = query_fn;
  g->free = free_fn;
  g->cancel = cancel_fn;
  g->poll = poll_fn;
  g->wait = wait_fn;
  return g;
}

}  // namespace

extern "C" int MPIX_Grequest_start(MPI_Grequest_query_function* query_fn,
                                    MPI_Grequest_free_function* free_fn,
                                    MPI_Grequest_cancel_function* cancel_fn,
                                    MPIX_Grequest_poll_function* poll_fn,
                                    MPIX_Grequest_wait_function* wait_fn, void* extra_state,
                                    MPI_Request* request) {
  const ApiCall call("MPIX_Grequest_start");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  auto g = with_callbacks(query_fn, free_fn, cancel_fn, poll_fn, wait_fn);
  g->extra_state = extra_state;
  return start_grequest(call.name(), std::move(g), request);
}

extern "C" int MPIX_Grequest_class_create(MPI_Grequest_query_function* query_fn,
                                           MPI_Grequest_free_function* free_fn,
                                           MPI_Grequest_cancel_function* cancel_fn,
                                           MPIX_Grequest_poll_function* poll_fn,
                                           MPIX_Grequest_wait_function* wait_fn,
                                           MPIX_Grequest_class* greq_class) {
  const ApiCall call("MPIX_Grequest_class_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  if (int rc = check_not_null(greq_class, "greq_class")) return raise(nullptr, call.name(), rc);
  g_classes.push_back(*with_callbacks(query_fn, free_fn, cancel_fn, poll_fn, wait_fn));
  *greq_class = kClassBase + static_cast<int>(g_classes.size() - 1);
  return MPI_SUCCESS;
}

extern "C" int MPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void* extra_state,
                                             MPI_Request* request) {
  const ApiCall call("MPIX_Grequest_class_allocate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  const long index = static_cast<long>(greq_class) - kClassBase;
  if (index < 0 || index >= static_cast<long>(g_classes.size())) {
    return raise(nullptr, call.name(),
                 fail(MPI_ERR_ARG, "greq_class={:#x} was not made by MPIX_Grequest_class_create",
                      greq_class));
  }
  auto g = std::make_shared<GRequest>(g_classes[static_cast<std::size_t>(index)]);
  g->extra_state = extra_state;
  return start_grequest(call.name(), std::move(g), request);
}

