#pragma once
// Argument validation shared by the MPI functions. Each helper returns
// MPI_SUCCESS or an error class, having recorded (fail()) a sentence that
// names the argument; the caller passes the class to raise().

#include <cstdint>

#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/info.hpp"

namespace mpi {

// MPI_ERR_OTHER before MPI_Init or after MPI_Finalize. Raises by itself
// (through MPI_COMM_WORLD's handler), so callers just return the result.
int check_running(const char* function);

// The raw-pointer forms are for hot paths (no reference-count traffic); the
// pointer is valid until the handle is freed.
int lookup_comm(MPI_Comm handle, Comm*& out);
int lookup_comm(MPI_Comm handle, CommPtr& out);
int lookup_group(MPI_Group handle, GroupPtr& out, const char* arg = "group");
// A handle for `g` in *out (MPI_GROUP_EMPTY when it has no members).
int store_group(GroupPtr g, MPI_Group* out);
// need_commit: communication and packing require a committed type.
int lookup_type(MPI_Datatype handle, const Datatype*& out, bool need_commit,
                const char* arg = "datatype");
int lookup_type(MPI_Datatype handle, TypePtr& out, bool need_commit, const char* arg = "datatype");
int check_count(std::int64_t count, const char* arg = "count");
// A null buffer is an error when count > 0 and the data would start in the
// null page; MPI_BOTTOM (== NULL) with absolute displacements is fine.
int check_buffer(const void* buf, int count, const Datatype& type, const char* arg = "buf");
int check_dest(const Comm& comm, int dest, const char* arg = "dest");
int check_source(const Comm& comm, int source, const char* arg = "source");
int check_send_tag(int tag, const char* arg = "tag");
int check_recv_tag(int tag, const char* arg = "tag");
// Datatype::commit(), with running out of memory reported as MPI_ERR_NO_MEM
// (the type stays uncommitted) instead of an exception.
int commit_type(const Datatype& type);
// MPI_ERR_ARG when p is null.
int check_not_null(const void* p, const char* arg);
// MPI_Comm/Win/Type_get_name of a null handle (MPI 4.1): its own name
// ("MPI_COMM_NULL" ...) into `name`, or MPI_ERR_ARG for a null argument.
int name_of_null_handle(const char* null_name, char* name, const char* name_arg, int* resultlen);
// An info argument that is only hints: MPI_INFO_NULL or a live info object
// (unknown keys in it are ignored, as the standard asks).
int check_info_arg(MPI_Info info);
// The info object behind `handle` (shared: the caller copies it if it keeps
// the hints); MPI_ERR_INFO naming `arg` when there is none.
int lookup_info(MPI_Info handle, InfoPtr& out, const char* arg);
// A new handle for `info` in *out (`arg` names out for the error).
int insert_info(InfoPtr info, MPI_Info* out, const char* arg);
// The error handler behind `handle`, or MPI_ERR_ERRHANDLER (MPI 4.1).
int lookup_errhandler(MPI_Errhandler handle, ErrhandlerPtr& out);

}  // namespace mpi
