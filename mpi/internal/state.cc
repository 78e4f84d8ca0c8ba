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

void install_predefined_objects(State& s) {
  const auto& builtins = builtin_types();
  for (int i = 1; i < static_cast<int>(builtins.size()); ++i) s.types.insert_at(i, builtins[i]);
  const auto& ops = builtin_ops();
  for (int i = 1; i < static_cast<int>(ops.size()); ++i) s.ops.insert_at(i, ops[i]);
  s.groups.insert_at(handle_index(HandleKind::group, MPI_GROUP_EMPTY),
                     std::make_shared<const Group>());
  s.errhandlers.insert_at(handle_index(HandleKind::errhandler, MPI_ERRORS_ARE_FATAL),
                          fatal_errhandler());
  s.errhandlers.insert_at(handle_index(HandleKind::errhandler, MPI_ERRORS_RETURN),
                          return_errhandler());
  s.infos.insert_at(handle_index(HandleKind::info, MPI_INFO_ENV),
                    make_env_info(s.world_size, s.thread_level));
}

}  // namespace mpi
