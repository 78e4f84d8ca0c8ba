// Jobs that connect (MPI 3.1 10.4): MPI_Open_port, MPI_Close_port, MPI_Comm_accept,
// MPI_Comm_connect, MPI_Comm_join. The ports and links are lapi's (lapi/link.hpp); joining
// the two groups is mpi/internal/connect.cc.
#include <cstring>
#include <memory>
#include <string>

#include "lapi/link.hpp"
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/connect.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// A lapi port or link failure: MPI_ERR_PORT for a name that is not a port or that nothing
// listens at, the core's detail kept.
int port_error(const lapi::Status& s) { return fail(MPI_ERR_PORT, "{}", s.message()); }

// The arguments every member checks: comm an intra-communicator, root one of its ranks,
// newcomm writable.
int check_group_args(MPI_Comm comm, int root, MPI_Comm* newcomm, Comm*& c) {
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) rc = fail(MPI_ERR_COMM, "comm is an inter-communicator");
  if (rc == MPI_SUCCESS && (root < 0 || root >= c->size())) {
    rc = fail(MPI_ERR_ROOT, "root={} is not a rank of comm (0..{})", root, c->size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  return rc;
}

// MPI_Comm_accept and MPI_Comm_connect: the root reaches the other group (`reach`), then the
// whole group joins it.
template <typename Reach>
int meet(const char* fn, const char* port_name, MPI_Info info, int root, MPI_Comm comm,
         MPI_Comm* newcomm, Reach reach) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  if (int rc = check_group_args(comm, root, newcomm, c)) return raise(c, fn, rc);
  std::unique_ptr<lapi::Link> link;
  int root_rc = MPI_SUCCESS;
  if (c->rank == root) {
    root_rc = check_info_arg(info);
    if (root_rc == MPI_SUCCESS) root_rc = check_not_null(port_name, "port_name");
    if (root_rc == MPI_SUCCESS) {
      if (lapi::Status s = reach(std::string_view(port_name), link); !s.ok()) root_rc = port_error(s);
    }
  }
  return raise(c, fn, join_other_group(*c, root, link.get(), root_rc, newcomm));
}

}  // namespace

extern "C" int MPI_Open_port(MPI_Info info, char* port_name) {
  const ApiCall call("MPI_Open_port");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Open_port";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_info_arg(info);
  if (rc == MPI_SUCCESS) rc = check_not_null(port_name, "port_name");
  std::string name;
  if (rc == MPI_SUCCESS) {
    if (lapi::Status s = lapi_context().open_port(name); !s.ok()) rc = fail(MPI_ERR_OTHER, "{}", s.message());
  }
  if (rc == MPI_SUCCESS && name.size() >= MPI_MAX_PORT_NAME) {
    (void)lapi_context().close_port(name);
    rc = fail(MPI_ERR_INTERN, "port name of {} characters (MPI_MAX_PORT_NAME {})", name.size(), MPI_MAX_PORT_NAME);
  }
  if (rc == MPI_SUCCESS) std::memcpy(port_name, name.c_str(), name.size() + 1);
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Close_port(const char* port_name) {
  const ApiCall call("MPI_Close_port");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Close_port";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(port_name, "port_name");
  if (rc == MPI_SUCCESS) {
    if (lapi::Status s = lapi_context().close_port(port_name); !s.ok()) rc = port_error(s);
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                               MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_accept");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return meet("MPI_Comm_accept", port_name, info, root, comm, newcomm,
              [](std::string_view port, std::unique_ptr<lapi::Link>& link) {
                return lapi_context().accept_link(port, link);
              });
}

extern "C" int MPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_connect");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return meet("MPI_Comm_connect", port_name, info, root, comm, newcomm,
              [](std::string_view port, std::unique_ptr<lapi::Link>& link) {
                return lapi_context().connect_link(port, link);
              });
}

extern "C" int MPI_Comm_join(int fd, MPI_Comm* intercomm) {
  const ApiCall call("MPI_Comm_join");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_join";
  if (int rc = check_running(kFn)) return rc;
  Comm* self = nullptr;
  int rc = lookup_comm(MPI_COMM_SELF, self);
  if (rc == MPI_SUCCESS) rc = check_not_null(intercomm, "intercomm");
  if (rc != MPI_SUCCESS) return raise(self, kFn, rc);
  std::unique_ptr<lapi::Link> link;
  int link_rc = MPI_SUCCESS;
  if (lapi::Status s = lapi::Link::over_socket(fd, link); !s.ok()) {
    link_rc = fail(MPI_ERR_ARG, "fd={}: {}", fd, s.message());
  }
  return raise(self, kFn, join_other_group(*self, 0, link.get(), link_rc, intercomm));
}
