// Communicator queries and MPI_Comm_free.
#include <cstring>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Comm_size(MPI_Comm comm, int* size) {
  const ApiCall call("MPI_Comm_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_size";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *size = c->size();
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  const ApiCall call("MPI_Comm_rank");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_rank";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(rank, "rank");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *rank = c->rank;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const ApiCall call("MPI_Comm_compare");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_compare";
  if (int rc = check_running(kFn)) return rc;
  Comm *a = nullptr, *b = nullptr;
  int rc = lookup_comm(comm1, a);
  if (rc == MPI_SUCCESS) rc = lookup_comm(comm2, b);
  if (rc == MPI_SUCCESS) rc = check_not_null(result, "result");
  if (rc != MPI_SUCCESS) return raise(a, kFn, rc);
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (a->is_inter() != b->is_inter()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int g = group_compare(*a->group, *b->group);
  if (a->is_inter()) {  // both groups count
    int r = group_compare(*a->remote_group, *b->remote_group);
    if (g == MPI_UNEQUAL || r == MPI_UNEQUAL) {
      g = MPI_UNEQUAL;
    } else if (g == MPI_SIMILAR || r == MPI_SIMILAR) {
      g = MPI_SIMILAR;
    }
  }
  *result = g == MPI_IDENT ? MPI_CONGRUENT : g;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  const ApiCall call("MPI_Comm_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_group";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(group, "group");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  MPI_Group h = state().groups.insert(c->group);
  if (h == MPI_GROUP_NULL) return raise(c, kFn, fail(MPI_ERR_INTERN, "too many groups"));
  *group = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  const ApiCall call("MPI_Comm_test_inter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_test_inter";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *flag = c->is_inter() ? 1 : 0;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  const ApiCall call("MPI_Comm_remote_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_remote_size";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  if (rc == MPI_SUCCESS && !c->is_inter()) {
    rc = fail(MPI_ERR_COMM, "comm is an intra-communicator (it has no remote group)");
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *size = c->remote_group->size();
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  const ApiCall call("MPI_Comm_set_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_set_name";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_name, "comm_name");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  const ApiCall call("MPI_Comm_get_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_get_name";
  if (int rc = check_running(kFn)) return rc;
  if (comm == MPI_COMM_NULL) {
    return raise(nullptr, kFn, name_of_null_handle("MPI_COMM_NULL", comm_name, "comm_name", resultlen));
  }
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_name, "comm_name");
  if (rc == MPI_SUCCESS) rc = check_not_null(resultlen, "resultlen");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_free(MPI_Comm* comm) {
  const ApiCall call("MPI_Comm_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_free";
  if (int rc = check_running(kFn)) return rc;
  CommPtr c;
  int rc = check_not_null(comm, "comm");
  if (rc == MPI_SUCCESS) rc = lookup_comm(*comm, c);
  if (rc == MPI_SUCCESS && state().comms.is_predefined(*comm)) {
    rc = fail(MPI_ERR_COMM, "{} cannot be freed", c->name);
  }
  if (rc != MPI_SUCCESS) return raise(c.get(), kFn, rc);
  return raise(c.get(), kFn, release_comm(*c, comm));
}
