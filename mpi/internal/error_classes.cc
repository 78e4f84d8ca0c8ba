#include "mpi/internal/error_classes.hpp"

#include <array>

#include "mpi.h"

namespace mpi {
namespace {

struct ClassInfo {
  int cls;
  const char* name;
  const char* text;
};

// Indexed by class value (MPICH's numbering); the static_assert below keeps it
// in step with mpi.h.
constexpr std::array<ClassInfo, MPICH_ERR_LAST_CLASS + 1> kClasses = {{
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer or buffer too small"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag argument"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduction operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated: longer than the receive buffer"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in the status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid file access mode"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion failed"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file handle"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "info key too long"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "info value too long"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "info key not defined"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "collective arguments differ between processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "not enough space"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port name"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file or file system"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service name"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "error spawning processes"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base address"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid attribute key"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assert argument"},
    {54, nullptr, nullptr},  // no class has this value in MPICH
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "target memory is outside the window"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {MPI_T_ERR_MEMORY, "MPI_T_ERR_MEMORY", "out of memory (tools interface)"},
    {MPI_T_ERR_NOT_INITIALIZED, "MPI_T_ERR_NOT_INITIALIZED", "tools interface not initialized"},
    {MPI_T_ERR_CANNOT_INIT, "MPI_T_ERR_CANNOT_INIT", "tools interface cannot be initialized now"},
    {MPI_T_ERR_INVALID_INDEX, "MPI_T_ERR_INVALID_INDEX", "invalid tools interface index"},
    {MPI_T_ERR_INVALID_ITEM, "MPI_T_ERR_INVALID_ITEM", "invalid tools interface item"},
    {MPI_T_ERR_INVALID_HANDLE, "MPI_T_ERR_INVALID_HANDLE", "invalid tools interface handle"},
    {MPI_T_ERR_OUT_OF_HANDLES, "MPI_T_ERR_OUT_OF_HANDLES", "no more tools interface handles"},
    {MPI_T_ERR_OUT_OF_SESSIONS, "MPI_T_ERR_OUT_OF_SESSIONS", "no more tools interface sessions"},
    {MPI_T_ERR_INVALID_SESSION, "MPI_T_ERR_INVALID_SESSION", "invalid tools interface session"},
    {MPI_T_ERR_CVAR_SET_NOT_NOW, "MPI_T_ERR_CVAR_SET_NOT_NOW", "control variable cannot be set now"},
    {MPI_T_ERR_CVAR_SET_NEVER, "MPI_T_ERR_CVAR_SET_NEVER", "control variable can never be set"},
    {MPI_T_ERR_PVAR_NO_STARTSTOP, "MPI_T_ERR_PVAR_NO_STARTSTOP", "performance variable cannot be started or stopped"},
    {MPI_T_ERR_PVAR_NO_WRITE, "MPI_T_ERR_PVAR_NO_WRITE", "performance variable cannot be written"},
    {MPI_T_ERR_PVAR_NO_ATOMIC, "MPI_T_ERR_PVAR_NO_ATOMIC", "performance variable cannot be read and written atomically"},
    {MPI_T_ERR_INVALID_NAME, "MPI_T_ERR_INVALID_NAME", "invalid tools interface name"},
    {MPI_T_ERR_INVALID, "MPI_T_ERR_INVALID", "invalid use of the tools interface"},
    {MPI_ERR_SESSION, "MPI_ERR_SESSION", "invalid session"},
    {MPI_ERR_PROC_ABORTED, "MPI_ERR_PROC_ABORTED", "communication with an aborted process"},
    {MPI_ERR_VALUE_TOO_LARGE, "MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    {MPI_T_ERR_NOT_SUPPORTED, "MPI_T_ERR_NOT_SUPPORTED", "tools interface function not supported"},
    {MPI_T_ERR_NOT_ACCESSIBLE, "MPI_T_ERR_NOT_ACCESSIBLE", "tools interface function not accessible"},
    {MPI_ERR_ERRHANDLER, "MPI_ERR_ERRHANDLER", "invalid error handler"},
}};

constexpr bool in_order() {
  for (std::size_t i = 0; i < kClasses.size(); ++i) {
    if (kClasses[i].cls != static_cast<int>(i)) return false;
  }
  return true;
}
static_assert(in_order(), "kClasses must list the classes of mpi.h in value order");

// The ULFM classes, above MPI's (MPICH numbers them from 101).
constexpr std::array<ClassInfo, MPICH_ERR_LAST_MPIX - MPICH_ERR_FIRST_MPIX> kMpixClasses{{
    {MPIX_ERR_PROC_FAILED, "MPIX_ERR_PROC_FAILED", "a process the call needed has failed"},
    {MPIX_ERR_PROC_FAILED_PENDING, "MPIX_ERR_PROC_FAILED_PENDING",
     "a process that could match this receive has failed"},
    {MPIX_ERR_REVOKED, "MPIX_ERR_REVOKED", "the communicator was revoked"},
    {MPIX_ERR_EAGAIN, "MPIX_ERR_EAGAIN", "the operation could not be started now; try again"},
    {MPIX_ERR_NOREQ, "MPIX_ERR_NOREQ", "no request could be allocated"},
}};
constexpr bool mpix_in_order() {
  for (std::size_t i = 0; i < kMpixClasses.size(); ++i) {
    if (kMpixClasses[i].cls != MPICH_ERR_FIRST_MPIX + 1 + static_cast<int>(i)) return false;
  }
  return true;
}
static_assert(mpix_in_order(), "kMpixClasses must list the MPIX classes of mpi.h in value order");

const ClassInfo* find_class(int cls) {
  if (cls >= 0 && cls <= MPICH_ERR_LAST_CLASS) return &kClasses[static_cast<std::size_t>(cls)];
  if (cls > MPICH_ERR_FIRST_MPIX && cls <= MPICH_ERR_LAST_MPIX) {
    return &kMpixClasses[static_cast<std::size_t>(cls - MPICH_ERR_FIRST_MPIX - 1)];
  }
  return nullptr;
}

}  // namespace

const char* error_class_name(int cls) {
  const ClassInfo* c = find_class(cls);
  return c != nullptr ? c->name : nullptr;
}

const char* error_class_text(int cls) {
  const ClassInfo* c = find_class(cls);
  return c != nullptr ? c->text : nullptr;
}

}  // namespace mpi
