// The MPI-1 names old programs still call (deprecated in MPI 2.0, removed
// in 3.0, still declared by MPICH 4.0's mpi.h), each mapped onto the
// current function; errors are raised under the current function's name.
// In C, MPI_Type_hvector/hindexed/struct report MPI_COMBINER_HVECTOR/
// HINDEXED/STRUCT (the _INTEGER combiners are for Fortran's calls).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"

using mpi::ApiCall;

extern "C" int MPI_Address(void* location, MPI_Aint* address) {
  const ApiCall call("MPI_Address");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Get_address(location, address);
}

extern "C" int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  const ApiCall call("MPI_Type_extent");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  MPI_Aint lb = 0;
  MPI_Aint* lb_out = extent == nullptr ? nullptr : &lb;
  return MPI_Type_get_extent(datatype, lb_out, extent);
}

extern "C" int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  const ApiCall call("MPI_Type_lb");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  MPI_Aint extent = 0;
  MPI_Aint* extent_out = displacement == nullptr ? nullptr : &extent;
  return MPI_Type_get_extent(datatype, displacement, extent_out);
}

extern "C" int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  const ApiCall call("MPI_Type_ub");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  MPI_Aint lb = 0, extent = 0;
  const int rc = MPI_Type_get_extent(datatype, displacement == nullptr ? nullptr : &lb, &extent);
  if (rc == MPI_SUCCESS) *displacement = lb + extent;
  return rc;
}

extern "C" int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_hvector");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

extern "C" int MPI_Type_hindexed(int count, int array_of_blocklengths[],
                                 MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_hindexed");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                  newtype);
}

extern "C" int MPI_Type_struct(int count, int array_of_blocklengths[],
                               MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                               MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_struct");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                array_of_types, newtype);
}

extern "C" int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  const ApiCall call("MPI_Attr_put");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

extern "C" int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  const ApiCall call("MPI_Attr_delete");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_delete_attr(comm, keyval);
}

// MPI_Copy_function and MPI_Delete_function have the signatures of their
// MPI-2 counterparts.
extern "C" int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                                 int* keyval, void* extra_state) {
  const ApiCall call("MPI_Keyval_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

extern "C" int MPI_Keyval_free(int* keyval) {
  const ApiCall call("MPI_Keyval_free");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_free_keyval(keyval);
}

extern "C" int MPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Errhandler_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_create_errhandler(function, errhandler);
}

extern "C" int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  const ApiCall call("MPI_Errhandler_set");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_set_errhandler(comm, errhandler);
}

extern "C" int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Errhandler_get");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Comm_get_errhandler(comm, errhandler);
}
