// Handle tables in MPICH's layout: predefined handles resolve by their exact
// value, user objects get indirect handles of their object type, and a
// handle of another kind (or a freed one) never resolves.
#include <doctest/doctest.h>

#include <string>

#include "mpi.h"
#include "mpi/internal/handles.hpp"

using mpi::HandleKind;
using mpi::HandleTable;

TEST_CASE("null handles and user handles carry MPICH's kind and object type bits") {
  CHECK(mpi::null_handle(HandleKind::comm) == MPI_COMM_NULL);
  CHECK(mpi::null_handle(HandleKind::datatype) == MPI_DATATYPE_NULL);
  CHECK(mpi::null_handle(HandleKind::group) == MPI_GROUP_NULL);
  CHECK(mpi::null_handle(HandleKind::op) == MPI_OP_NULL);
  CHECK(mpi::null_handle(HandleKind::errhandler) == MPI_ERRHANDLER_NULL);
  CHECK(mpi::null_handle(HandleKind::request) == MPI_REQUEST_NULL);
  CHECK(mpi::null_handle(HandleKind::info) == MPI_INFO_NULL);
  CHECK(mpi::null_handle(HandleKind::win) == MPI_WIN_NULL);
  CHECK(mpi::null_handle(HandleKind::keyval) == MPI_KEYVAL_INVALID);
  const unsigned comm = static_cast<unsigned>(mpi::make_handle(HandleKind::comm, 7));
  CHECK((comm >> 30) == 3);  // indirect
  CHECK(((comm >> 26) & 0xf) == 1);  // communicator, like MPI_COMM_WORLD's
  CHECK(((static_cast<unsigned>(MPI_COMM_WORLD) >> 26) & 0xf) == 1);
  CHECK(mpi::handle_index(HandleKind::comm, static_cast<int>(comm)) == 7);
  CHECK(mpi::handle_index(HandleKind::datatype, static_cast<int>(comm)) == -1);
  CHECK(mpi::handle_index(HandleKind::comm, MPI_COMM_WORLD) == -1);  // predefined, not user
  // Messages are requests in MPICH; here they keep a range of their own.
  const int message = mpi::make_handle(HandleKind::message, 3);
  CHECK(((static_cast<unsigned>(message) >> 26) & 0xf) == 0xb);
  CHECK(mpi::handle_index(HandleKind::request, message) == -1);
  CHECK(mpi::handle_index(HandleKind::message, message) == 3);
}

TEST_CASE("a table resolves its own predefined and user handles only") {
  HandleTable<std::string> comms{HandleKind::comm};
  comms.insert_at(MPI_COMM_WORLD, "world");
  comms.insert_at(MPI_COMM_SELF, "self");
  REQUIRE(comms.find(MPI_COMM_WORLD) != nullptr);
  CHECK(*comms.find(MPI_COMM_WORLD) == "world");
  CHECK(*comms.find(MPI_COMM_SELF) == "self");
  CHECK(comms.is_predefined(MPI_COMM_SELF));
  const int dup = comms.insert("dup");
  CHECK(*comms.find(dup) == "dup");
  CHECK_FALSE(comms.is_predefined(dup));
  // Wrong kinds, nulls and garbage.
  for (int h : {MPI_COMM_NULL, MPI_INT, MPI_GROUP_EMPTY, MPI_SUM, MPI_ERRORS_RETURN,
                MPI_REQUEST_NULL, MPI_INFO_ENV, static_cast<int>(MPI_FLOAT_INT), 0, -1,
                mpi::make_handle(HandleKind::datatype, 1), mpi::make_handle(HandleKind::comm, 99)}) {
    CAPTURE(h);
    CHECK(comms.find(h) == nullptr);
    CHECK_FALSE(comms.is_predefined(h));
  }
  // What resolved tells predefined from user objects by its kind bits.
  CHECK(mpi::resolved_is_predefined(MPI_COMM_WORLD));
  CHECK(mpi::resolved_is_predefined(static_cast<int>(MPI_FLOAT_INT)));
  CHECK_FALSE(mpi::resolved_is_predefined(dup));
  // Predefined objects cannot be erased; user ones can, once.
  CHECK_FALSE(comms.erase(MPI_COMM_WORLD));
  CHECK(comms.erase(dup));
  CHECK(comms.find(dup) == nullptr);
  CHECK_FALSE(comms.erase(dup));
  CHECK(comms.insert("again") == dup);  // the slot is reused
  // Emptied, nothing resolves (every predefined slot stays, matching nothing).
  comms.clear();
  for (int h : {MPI_COMM_WORLD, MPI_COMM_SELF, dup, 0, -1}) {
    CAPTURE(h);
    CHECK(comms.find(h) == nullptr);
    CHECK_FALSE(comms.is_predefined(h));
  }
}

TEST_CASE("builtin datatypes and MPICH's direct-kind pair types share a table") {
  HandleTable<int> types{HandleKind::datatype};
  types.insert_at(MPI_CHAR, 1);        // 0x4c000101: low byte 1
  types.insert_at(MPI_DOUBLE_INT, 2);  // 0x8c000001: also low byte 1, direct kind
  types.insert_at(MPI_FLOAT_INT, 3);   // 0x8c000000
  CHECK(mpi::predefined_slot(MPI_CHAR) != mpi::predefined_slot(MPI_DOUBLE_INT));
  CHECK(*types.find(MPI_CHAR) == 1);
  CHECK(*types.find(MPI_DOUBLE_INT) == 2);
  CHECK(*types.find(MPI_FLOAT_INT) == 3);
  // Same low byte, other size bits or kind: not the type.
  CHECK(types.find(MPI_CHAR + 0x100) == nullptr);
  CHECK(types.find(static_cast<int>(0xcc000001u)) == nullptr);
  CHECK(types.find(MPI_COMM_SELF) == nullptr);
}
