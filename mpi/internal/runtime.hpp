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

// Writes to user memory that handlers make on lapi's threads (the window
// requests a target runs, interrupt mode) are published with a release
// here; a synchronising call that learns of them without the engine (the
// node collectives: flags written by other processes) acquires it, so the
// order that other processes' messages guarantee is also one this
// process's threads see (and ThreadSanitizer with them).
void publish_handler_writes();
void observe_handler_writes();

// MPI error class of an engine code; the detail of the engine's last error
// becomes the MPI detail.
int engine_error(mpcpi::Errc code);
// Same for a status (already completed operation).
int engine_status_class(mpcpi::Errc code);

}  // namespace mpi
