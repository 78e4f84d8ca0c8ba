// The name service of jobs that connect (MPI 3.1 10.4.4): MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name, through a lapis_names daemon at LAPIS_NAME_SERVER (lapi/names.hpp).
// Not collective: any process may call them.
#include <cstring>
#include <string>

#include "lapi/names.hpp"
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace {

// service_name, info and (when given) port_name.
int check_args(const char* service_name, MPI_Info info, const void* port_name) {
  int rc = check_not_null(service_name, "service_name");
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc == MPI_SUCCESS) rc = check_not_null(port_name, "port_name");
  return rc;
}

}  // namespace

extern "C" int MPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const ApiCall call("MPI_Publish_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Publish_name";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_args(service_name, info, port_name);
  if (rc == MPI_SUCCESS) {
    if (lapi::Status s = lapi::names::publish(service_name, port_name); !s.ok()) {
      rc = fail(MPI_ERR_SERVICE, "{}", s.message());
    }
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const ApiCall call("MPI_Unpublish_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Unpublish_name";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_args(service_name, info, port_name);
  if (rc == MPI_SUCCESS) {
    if (lapi::Status s = lapi::names::unpublish(service_name); !s.ok()) {
      rc = fail(MPI_ERR_SERVICE, "{}", s.message());
    }
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  const ApiCall call("MPI_Lookup_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Lookup_name";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_args(service_name, info, port_name);
  std::string port;
  if (rc == MPI_SUCCESS) {
    if (lapi::Status s = lapi::names::lookup(service_name, port); !s.ok()) {
      rc = fail(MPI_ERR_NAME, "{}", s.message());
    } else if (port.size() >= MPI_MAX_PORT_NAME) {
      rc = fail(MPI_ERR_NAME, "service '{}' names a port of {} characters (MPI_MAX_PORT_NAME {})",
                service_name, port.size(), MPI_MAX_PORT_NAME);
    } else {
      std::memcpy(port_name, port.c_str(), port.size() + 1);
    }
  }
  return raise(nullptr, kFn, rc);
}
