#include "mpi/internal/attributes.hpp"

#include "mpi.h"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int copy_attributes(const Comm& from, Comm& to) {
  State& s = state();
  for (const auto& [key, value] : from.attributes) {
    auto kv = s.keyvals.find(key);
    if (kv == s.keyvals.end() || kv->second.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = kv->second.copy(from.handle, key, kv->second.extra_state, value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      return fail(rc, "the copy callback of keyval {} returned {}", key, rc);
    }
    if (flag) to.attributes[key] = out;
  }
  return MPI_SUCCESS;
}

int delete_all_attributes(Comm& comm) {
  State& s = state();
  int first_error = MPI_SUCCESS;
  // Callbacks may not touch this communicator's attributes; take the map.
  auto attributes = std::move(comm.attributes);
  comm.attributes.clear();
  for (const auto& [key, value] : attributes) {
    auto kv = s.keyvals.find(key);
    if (kv == s.keyvals.end() || kv->second.del == nullptr) continue;
    int rc = kv->second.del(comm.handle, key, value, kv->second.extra_state);
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = fail(rc, "the delete callback of keyval {} returned {}", key, rc);
    }
  }
  return first_error;
}

}  // namespace mpi
