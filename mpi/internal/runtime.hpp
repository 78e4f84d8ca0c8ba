#pragma once
// The communication objects behind MPI: one lapi context and the mpcpi
// engine over it, alive between MPI_Init and MPI_Finalize.

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"

namespace mpi {

// Creates the lapi context (LAPIS_* settings; polling unless LAPIS_MODE says
// otherwise) and the engine (LAPIS_MPI_VARIANT, LAPIS_EAGER_LIMIT, ...).
// Returns an MPI error class with the detail recorded.
int start_runtime();
// Flushes the engine and terms the context (collective).
int stop_runtime();

// Valid only while MPI is running.
lapi::Context& lapi_context();
mpcpi::Engine& engine();

// MPI error class of an engine code; the detail of the engine's last error
// becomes the MPI detail.
int engine_error(mpcpi::Errc code);
// Same for a status (already completed operation).
int engine_status_class(mpcpi::Errc code);

}  // namespace mpi
