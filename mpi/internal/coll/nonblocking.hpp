#pragma once
// Nonblocking and persistent collectives.
//
// A collective call validates its arguments, then hands the rest of its work
// (packing, the algorithm, unpacking) as a body to run_collective():
//  - blocking: the body runs at once on the caller's stack;
//  - nonblocking (MPI_I...): the body runs on a Fiber (fiber.hpp). Where it
//    would wait for a message, CollChannel suspends the fiber; the engine's
//    progress hook resumes every outstanding collective, in call order, from
//    whatever MPI call the program makes next (test, wait, probe, another
//    collective's wait ...). So each algorithm is written once.
//  - persistent (MPI_..._init): the body is kept and run as a nonblocking
//    collective at each MPI_Start.
//
// Every nonblocking call (and persistent init) on a communicator takes the
// communicator's next sequence number, 1 and up, and its messages carry it
// in their tag (CollChannel), so collectives outstanding together never
// take each other's messages. A persistent collective takes its number once,
// at init: its starts follow one another, and one sender's messages match
// in order. Blocking collectives use sequence number 0: they follow one
// another too, and a constant tag keeps the engine's matching on its fast
// path (a new tag per call costs a hash-map node per message: 8-byte
// allreduce at 2 ranks went from ~7 to ~12 us when every call had one).
//
// An MPI request for a collective completes through the engine like any
// other: it is a zero-byte receive from this process on the communicator's
// reserved2 context, matched by a zero-byte send the progress hook makes
// when the collective's fiber finishes. Wait, Test and their -all/-any/-some
// forms, Request_free and Request_get_status thus need no special case.
//
// Progress happens only inside MPI calls of the thread that runs MPI
// (interrupt mode included: messages already posted move on without the
// application, but the next step of an algorithm starts at its next MPI
// call).

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {

class Fiber;
struct Request;

// A collective's work after validation; returns an MPI class (detail
// recorded). Runs with the sequence number its messages use.
using CollBody = std::function<int(std::uint32_t seq)>;

struct CollOp {
  CollBody body;
  // What the body refers to by pointer: communicator, datatypes, op (the
  // program may free its handles while the collective is pending).
  std::vector<std::shared_ptr<const void>> keep;
  std::uint32_t seq = 0;        // persistent: fixed at init
  std::unique_ptr<Fiber> fiber;  // while running
  int rc = MPI_SUCCESS;
  int done_tag = 0;  // of the completion message to self
  std::string detail;  // of a failure, for the request's completion
  const Comm* comm = nullptr;
  std::shared_ptr<MPI_Status> status;  // CollCall::status
  ~CollOp();
};

// How a collective was called (`{}`: blocking).
enum class CollMode { blocking, nonblocking, persistent };
struct CollCall {
  CollMode mode = CollMode::blocking;
  MPI_Request* request = nullptr;  // nonblocking and persistent: the result
  MPI_Info info = MPI_INFO_NULL;  // persistent: MPI_INFO_NULL or MPI_INFO_ENV
};

// Operations that are not collectives (MPI_Isendrecv) run on a fiber too:
// they take no sequence number (only some ranks make them), and report the
// status the body leaves in `status`.
struct FiberOpExtras {
  bool takes_seq = true;
  std::shared_ptr<MPI_Status> status;
};

// The objects a pending collective must keep alive, by handle (null
// handles are skipped).
std::vector<std::shared_ptr<const void>> keep_objects(MPI_Comm comm,
                                                      std::initializer_list<MPI_Datatype> types,
                                                      MPI_Op op = MPI_OP_NULL);
void keep_types(std::vector<std::shared_ptr<const void>>& keep, const MPI_Datatype* types, int n);

// Nonblocking or persistent: creates the request (persistent: inactive;
// nonblocking: started). Raises its own errors.
int launch_collective(Comm& comm, const char* fn, const CollCall& how,
                      std::vector<std::shared_ptr<const void>> keep, CollBody body,
                      const FiberOpExtras& extras = {});

// Runs `body` now (blocking) or launches it. `keep` is only evaluated when
// the call is not blocking.
template <typename Body, typename Keep>
int run_collective(Comm& comm, const char* fn, const CollCall& how, Keep&& keep, Body&& body) {
  if (how.mode == CollMode::blocking) return raise(&comm, fn, body(0));
  return launch_collective(comm, fn, how, keep(), CollBody(std::forward<Body>(body)));
}

// The class a completed collective request reports (its detail set for
// raise()); `err` is the engine's result for the completion message.
int collective_result(const CollOp& op, mpcpi::Errc err);

// MPI_Start of a persistent collective request (inactive, kind coll).
[[gnu::noinline]] int start_collective(Request& r);

// Progress hook: advances every outstanding collective once (no-op inside a
// fiber or when re-entered).
void progress_collectives();
// MPI_Finalize: runs outstanding collectives (freed requests) to the end.
void drain_collectives();
// MPI_Comm_disconnect: runs those on `comm` to the end (the others progress
// meanwhile).
void drain_collectives_on(const Comm& comm);

}  // namespace mpi
