#include "mpi/internal/state.hpp"

#include "mpi/internal/builtin_types.hpp"

namespace mpi {

State g_state;

ErrhandlerPtr fatal_errhandler() {
  static const ErrhandlerPtr h = std::make_shared<Errhandler>(Errhandler{Errhandler::Kind::fatal});
  return h;
}

ErrhandlerPtr return_errhandler() {
  static const ErrhandlerPtr h =
      std::make_shared<Errhandler>(Errhandler{Errhandler::Kind::return_codes});
  return h;
}

namespace {

ErrhandlerPtr throw_exceptions_errhandler() {
  static const ErrhandlerPtr h =
      std::make_shared<Errhandler>(Errhandler{Errhandler::Kind::cxx_exceptions});
  return h;
}

}  // namespace

void install_predefined_objects(State& s) {
  for (MPI_Datatype handle : builtin_type_handles()) {
    s.types.insert_at(handle, builtin_types()[predefined_slot(handle)]);
  }
  const auto& ops = builtin_ops();
  for (int i = 1; i < static_cast<int>(ops.size()); ++i) {
    s.ops.insert_at(builtin_op_handle(static_cast<OpKind>(i)), ops[i]);
  }
  s.groups.insert_at(MPI_GROUP_EMPTY, std::make_shared<const Group>());
  s.errhandlers.insert_at(MPI_ERRORS_ARE_FATAL, fatal_errhandler());
  s.errhandlers.insert_at(MPI_ERRORS_RETURN, return_errhandler());
  // MPI 4.0's MPI_ERRORS_ABORT ends the communicator's processes; the job
  // ends with them here, as with MPI_ERRORS_ARE_FATAL.
  s.errhandlers.insert_at(MPI_ERRORS_ABORT, fatal_errhandler());
  s.errhandlers.insert_at(MPIR_ERRORS_THROW_EXCEPTIONS, throw_exceptions_errhandler());
  s.infos.insert_at(MPI_INFO_ENV, make_env_info(s.world_size, s.thread_level));
}

}  // namespace mpi
