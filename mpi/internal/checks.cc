#include "mpi/internal/checks.hpp"

#include <sched.h>

#include <cstring>
#include <new>

#include "mpi/internal/api_call.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// Data placed below this address is in the never-mapped null page.
constexpr std::int64_t kNullPage = 4096;

}  // namespace

void ApiCall::sched_yield_now() { sched_yield(); }

int ApiCall::refuse() const {
  return raise(nullptr, function_,
               fail(MPI_ERR_OTHER,
                    "another thread is inside an MPI call: calls from two threads at once need "
                    "MPI_THREAD_MULTIPLE (granted: {})",
                    state().thread_level == MPI_THREAD_SINGLE     ? "MPI_THREAD_SINGLE"
                    : state().thread_level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                                                                  : "MPI_THREAD_SERIALIZED"));
}

int check_running(const char* function) {
  const State& s = state();
  if (s.phase == Phase::running) return MPI_SUCCESS;
  // Not running: neither the world model nor a session is.
  int code = fail(MPI_ERR_OTHER, "called {}",
                  s.world == Phase::finalized   ? "after MPI_Finalize"
                  : s.phase == Phase::finalized ? "after the last MPI_Session_finalize"
                                                : "before MPI_Init or MPI_Session_init");
  return raise(nullptr, function, code);
}

namespace {

CommPtr* find_comm(MPI_Comm handle, int& rc) {
  rc = MPI_SUCCESS;
  if (handle == MPI_COMM_NULL) {
    rc = fail(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    return nullptr;
  }
  CommPtr* c = state().comms.find(handle);
  if (c == nullptr) rc = fail(MPI_ERR_COMM, "comm={:#x} is not a communicator", handle);
  return c;
}

TypePtr* find_type(MPI_Datatype handle, bool need_commit, const char* arg, int& rc) {
  rc = MPI_SUCCESS;
  if (handle == MPI_DATATYPE_NULL) {
    rc = fail(MPI_ERR_TYPE, "{} is MPI_DATATYPE_NULL", arg);
    return nullptr;
  }
  TypePtr* t = state().types.find(handle);
  if (t == nullptr) {
    rc = fail(MPI_ERR_TYPE, "{}={:#x} is not a datatype", arg, handle);
  } else if (need_commit && !(*t)->committed()) {
    rc = fail(MPI_ERR_TYPE, "{}={:#x} is not committed (call MPI_Type_commit)", arg, handle);
    return nullptr;
  }
  return t;
}

}  // namespace

int lookup_comm(MPI_Comm handle, CommPtr& out) {
  int rc;
  if (CommPtr* c = find_comm(handle, rc)) out = *c;
  return rc;
}

int lookup_group(MPI_Group handle, GroupPtr& out, const char* arg) {
  if (handle == MPI_GROUP_NULL) return fail(MPI_ERR_GROUP, "{} is MPI_GROUP_NULL", arg);
  GroupPtr* g = state().groups.find(handle);
  if (g == nullptr) return fail(MPI_ERR_GROUP, "{}={:#x} is not a group", arg, handle);
  out = *g;
  return MPI_SUCCESS;
}

int lookup_comm(MPI_Comm handle, Comm*& out) {
  int rc;
  CommPtr* c = find_comm(handle, rc);
  out = c ? c->get() : nullptr;
  return rc;
}

int lookup_type(MPI_Datatype handle, TypePtr& out, bool need_commit, const char* arg) {
  int rc;
  if (TypePtr* t = find_type(handle, need_commit, arg, rc)) out = *t;
  return rc;
}

int lookup_type(MPI_Datatype handle, const Datatype*& out, bool need_commit, const char* arg) {
  int rc;
  TypePtr* t = find_type(handle, need_commit, arg, rc);
  out = t ? t->get() : nullptr;
  return rc;
}

int check_count(std::int64_t count, const char* arg) {
  if (count < 0) return fail(MPI_ERR_COUNT, "{}={} is negative", arg, count);
  return MPI_SUCCESS;
}

int check_buffer(const void* buf, int count, const Datatype& type, const char* arg) {
  // count instances must be addressable: their bytes and their span.
  std::int64_t bytes = 0, span = 0;
  if (__builtin_mul_overflow(std::int64_t{count}, type.size(), &bytes) ||
      __builtin_mul_overflow(std::int64_t{count}, type.extent(), &span)) [[unlikely]] {
    return fail(MPI_ERR_COUNT, "count={} of a type of {} bytes (extent {}) overflows 64 bits",
                count, type.size(), type.extent());
  }
  if (buf != nullptr || count == 0 || type.size() == 0) return MPI_SUCCESS;
  if (type.true_lb() >= kNullPage) return MPI_SUCCESS;  // absolute addresses from MPI_BOTTOM
  return fail(MPI_ERR_BUFFER, "{} is NULL with count={}", arg, count);
}

int check_dest(const Comm& comm, int dest, const char* arg) {
  if (dest == MPI_PROC_NULL || (dest >= 0 && dest < comm.peer_size())) return MPI_SUCCESS;
  return fail(MPI_ERR_RANK, "{}={} is not a rank of the communicator (0..{}) or MPI_PROC_NULL",
              arg, dest, comm.peer_size() - 1);
}

int check_source(const Comm& comm, int source, const char* arg) {
  if (source == MPI_ANY_SOURCE || source == MPI_PROC_NULL ||
      (source >= 0 && source < comm.peer_size())) {
    return MPI_SUCCESS;
  }
  return fail(MPI_ERR_RANK,
              "{}={} is not a rank of the communicator (0..{}), MPI_ANY_SOURCE or MPI_PROC_NULL",
              arg, source, comm.peer_size() - 1);
}

int check_send_tag(int tag, const char* arg) {
  int ub = state().attr_tag_ub;
  if (tag >= 0 && tag <= ub) return MPI_SUCCESS;
  return fail(MPI_ERR_TAG, "{}={} is outside 0..MPI_TAG_UB ({})", arg, tag, ub);
}

int check_recv_tag(int tag, const char* arg) {
  if (tag == MPI_ANY_TAG) return MPI_SUCCESS;
  int ub = state().attr_tag_ub;
  if (tag >= 0 && tag <= ub) return MPI_SUCCESS;
  return fail(MPI_ERR_TAG, "{}={} is outside 0..MPI_TAG_UB ({}) and not MPI_ANY_TAG", arg, tag, ub);
}

int check_info_arg(MPI_Info info) {
  if (info == MPI_INFO_NULL || state().infos.find(info) != nullptr) return MPI_SUCCESS;
  return fail(MPI_ERR_INFO, "info={:#x} is not an info object", info);
}

int lookup_info(MPI_Info handle, InfoPtr& out, const char* arg) {
  InfoPtr* p = state().infos.find(handle);
  if (p == nullptr) return fail(MPI_ERR_INFO, "{}={:#x} is not an info object", arg, handle);
  out = *p;
  return MPI_SUCCESS;
}

int insert_info(InfoPtr info, MPI_Info* out, const char* arg) {
  MPI_Info h = state().infos.insert(std::move(info));
  if (h == MPI_INFO_NULL) return fail(MPI_ERR_INTERN, "too many info objects for {}", arg);
  *out = h;
  return MPI_SUCCESS;
}

int lookup_errhandler(MPI_Errhandler handle, ErrhandlerPtr& out) {
  ErrhandlerPtr* h = state().errhandlers.find(handle);
  if (h == nullptr) return fail(MPI_ERR_ERRHANDLER, "errhandler={:#x} is not an error handler", handle);
  out = *h;
  return MPI_SUCCESS;
}

int check_not_null(const void* p, const char* arg) {
  if (p != nullptr) return MPI_SUCCESS;
  return fail(MPI_ERR_ARG, "{} is NULL", arg);
}

int name_of_null_handle(const char* null_name, char* name, const char* name_arg, int* resultlen) {
  int rc = check_not_null(name, name_arg);
  if (rc == MPI_SUCCESS) rc = check_not_null(resultlen, "resultlen");
  if (rc != MPI_SUCCESS) return rc;
  std::strcpy(name, null_name);
  *resultlen = static_cast<int>(std::strlen(null_name));
  return MPI_SUCCESS;
}

int commit_type(const Datatype& type) {
  try {
    type.commit();
  } catch (const std::bad_alloc&) {
    return fail(MPI_ERR_NO_MEM, "no memory to flatten the datatype ({} bytes, extent {})",
                type.size(), type.extent());
  }
  return MPI_SUCCESS;
}

}  // namespace mpi
