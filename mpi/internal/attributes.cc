#include "mpi/internal/attributes.hpp"

#include <vector>

#include "mpi.h"
#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int copy_attributes(const Comm& from, Comm& to) {
  State& s = state();
  for (int key : from.attribute_order) {
    const AttrValue& value = from.attributes.at(key);
    auto kv = s.keyvals.find(key);
    if (kv == s.keyvals.end() || kv->second.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    if (int rc = kv->second.run_copy(from.handle, key, value, &out, &flag)) return rc;
    if (flag) set_attribute(to, key, AttrValue(out, value.set_by));  // the copy keeps its kind
  }
  return MPI_SUCCESS;
}

void set_attribute(Comm& comm, int keyval, AttrValue value) {
  auto [it, inserted] = comm.attributes.insert_or_assign(keyval, value);
  if (inserted) comm.attribute_order.push_back(keyval);
}

void erase_attribute(Comm& comm, int keyval) {
  if (comm.attributes.erase(keyval) == 0) return;
  std::erase(comm.attribute_order, keyval);
}

int delete_all_attributes(Comm& comm) {
  State& s = state();
  int first_error = MPI_SUCCESS;
  // Callbacks may not touch this communicator's attributes; take the map.
  auto attributes = std::move(comm.attributes);
  auto order = std::move(comm.attribute_order);
  comm.attributes.clear();
  comm.attribute_order.clear();
  for (auto key_it = order.rbegin(); key_it != order.rend(); ++key_it) {
    const int key = *key_it;
    auto kv = s.keyvals.find(key);
    if (kv == s.keyvals.end()) continue;
    const int rc = kv->second.run_delete(comm.handle, key, attributes.at(key));
    if (first_error == MPI_SUCCESS) first_error = rc;
  }
  return first_error;
}

int release_comm(Comm& comm, MPI_Comm* handle) {
  int rc = delete_all_attributes(comm);
  // Its buffer is detached as MPI_Comm_detach_buffer would (once empty).
  MPI_Count size = 0;
  void* buffer = nullptr;
  if (int rc2 = detach_buffer(BufferOwner{&comm.bsend_key, "the communicator"}, &buffer, size);
      rc == MPI_SUCCESS)
    rc = rc2;
  state().comms.erase(*handle);
  if (*handle == state().parent_comm) state().parent_comm = MPI_COMM_NULL;
  *handle = MPI_COMM_NULL;
  return rc;
}

}  // namespace mpi
