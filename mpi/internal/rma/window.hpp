#pragma once
// MPI-3 one-sided windows over the core's public API.
//
// Mapping (see mpi/README.md, "RMA windows"):
//  - contiguous Put/Get whose target range lies in registered memory go to
//    lapi put/get (RDMA, or plain copies on one node: no target CPU);
//  - accumulates, fetch-and-op and compare-and-swap on memory mapped here
//    run here, under the target's accumulate lock (rma/apply.hpp);
//  - other accumulates and every non-contiguous target layout run AT THE
//    TARGET in an Amsend completion handler (rma/protocol.cc), in each
//    origin's issue order, atomic as apply.hpp says; the target answers
//    every such request (data for the fetching kinds, an empty ack otherwise,
//    or MPI_ERR_RMA_RANGE for a range outside its window);
//  - passive-target locks are a 64-bit word per window and rank in memory
//    from alloc_registered, changed with lapi rmw64 (shared: fetch-and-add,
//    exclusive: compare-and-swap), so taking a lock needs no target progress
//    where the transport does atomics itself (shared memory);
//  - completion: lapi flush_rma(target) for Put/Get, a counter per target
//    for the Amsend requests' answers.
//
// Threading: MPI calls come from one thread at a time (api_call.hpp). The
// target side (protocol.cc) may run on lapi's progress or handler thread:
// it touches a Window only through the registry (g_registry's mutex) and
// the window's acc_lock, and origin-side counters only through lapi
// Counters and atomics.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "counters/counter.hpp"
#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/handles.hpp"
#include "mpi/internal/rma/lock_word.hpp"

namespace mpi::rma {

// What every rank learns about every other rank's part of the window.
struct TargetInfo {
  std::uint64_t base = 0;       // address of the window memory there
  std::uint64_t size = 0;       // bytes
  std::int64_t disp_unit = 1;
  std::uint64_t lock_word = 0;  // address of its lock word (registered)
  std::uint32_t win_id = 0;     // its registry id (protocol messages name it)
  std::uint32_t registered = 0;  // 1 when [base, base+size) is registered memory there
};

inline constexpr std::uint32_t kMappedProgressEvery = 16;  // a power of two

// Counts one access or flush that made no library call; true when this one
// should drive progress (see Window::mapped_calls).
struct Window;
bool mapped_call_due(Window& win);

// A lock this rank holds on one target (passive target).
enum class Held : std::uint8_t { none, shared, exclusive };

struct Window {
  int handle = MPI_WIN_NULL;
  std::weak_ptr<Window> self;  // pending requests keep their window alive
  std::uint32_t id = 0;  // registry id
  CommPtr comm;  // a private duplicate of the creating communicator
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  bool registered_here = false;  // we registered [base, base+size): deregister at free
  bool allocated_here = false;   // base came from alloc_registered (MPI_Win_allocate)
  std::uint64_t* lock_word = nullptr;  // alloc_registered, kLockWordsBytes (apply.hpp)
  std::vector<TargetInfo> targets;     // by communicator rank
  // By rank: its window memory mapped into this process (lapi map_remote:
  // same host, memory from MPI_Win_allocate), where contiguous Put and Get
  // are a memcpy; null where they go through the core.
  std::vector<std::byte*> mapped;
  // By rank: set by a copy through `mapped`, cleared by the flush after it
  // (such a flush completes something: it need not drive progress).
  std::vector<std::uint8_t> mapped_out;
  // By rank: its accumulate lock word mapped here (apply.hpp), where
  // `mapped` is set.
  std::vector<std::uint64_t*> mapped_acc;
  // Every rank maps every target's memory and accumulate word: accumulates
  // run under the targets' accumulate locks, wherever they run; otherwise
  // per element (apply.hpp). Agreed at creation.
  bool locked = false;
  // Accesses through `mapped` make no library call: one in
  // kMappedProgressEvery drives progress anyway, so that a rank that spins
  // on its window with them still runs the requests others send it.
  std::uint32_t mapped_calls = 0;

  // Target side: Amsend requests on this window run under it, in each
  // origin's issue order: next_seq[origin] is the next to run, `early`
  // holds requests that arrived before their predecessors (TargetJob*).
  std::mutex acc_lock;
  std::vector<std::uint64_t> next_seq;
  std::vector<std::map<std::uint64_t, void*>> early;

  // Origin side, per target rank: Amsend requests issued and not yet waited
  // for, and the counter their answers move. Put/Get issued since the last
  // flush of that target (flush_rma needed), and one counter for the local
  // completion of every Put/Get.
  std::vector<std::unique_ptr<lapi::Counter>> answers;
  std::vector<int> requests_out;
  std::vector<std::uint64_t> seq_out;  // last sequence number sent to each target
  std::vector<char> rma_out;
  lapi::Counter local_done;
  int local_out = 0;
  // The first error a target reported for this window's requests (an MPI
  // class, 0 = none), with its detail; reported by the next synchronisation.
  std::atomic<int> remote_error{0};
  std::string remote_error_detail;  // written before remote_error (release)

  // Synchronisation state.
  bool fence_epoch = false;   // a fence opened an epoch (no MPI_MODE_NOSUCCEED)
  bool ops_since_fence = false;
  bool lock_all = false;
  // Generalized active target (post/start/complete/wait): the targets of
  // the open access epoch (MPI_Win_start), the origins of the open exposure
  // epoch (MPI_Win_post) and the receives of their MPI_Win_complete notes.
  std::vector<int> access_group;
  std::vector<char> in_access;  // per target
  std::vector<int> exposure_group;
  bool exposure = false;
  std::vector<mpcpi::Request*> complete_notes;
  std::vector<Held> held;     // per target
  // Per target: its open lock was asserted MPI_MODE_NOCHECK, so no lock
  // word was taken and its unlock releases none. Per target because a
  // NOCHECK lock on one target may be open beside a checked one on another.
  std::vector<char> nocheck;

  ErrhandlerPtr errhandler;
  std::string name;
  std::map<int, AttrValue> attributes;  // user keyval -> value
  // MPI_Win_allocate_shared: the node's segment (mapped here) and each
  // rank's offset and size in it.
  void* shm_base = nullptr;
  std::size_t shm_len = 0;
  std::vector<std::uint64_t> shm_offset, shm_size;
  // MPI_Win_create_dynamic: attached regions (base -> bytes); read by the
  // request handler under acc_lock, changed under it. Every access to a
  // dynamic window runs at the target (its origin knows no bounds), so the
  // regions need no registration.
  std::map<std::uint64_t, std::uint64_t> attached;
  // What MPI_Win_get_attr's predefined keys point at.
  MPI_Aint attr_size = 0;
  int attr_disp_unit = 1;
  int attr_flavor = MPI_WIN_FLAVOR_CREATE;
  int attr_model = MPI_WIN_UNIFIED;

  int rank() const { return comm->rank; }
  int size_of_group() const { return comm->size(); }
  bool in_epoch_with(int target) const {
    const auto t = static_cast<std::size_t>(target);
    return fence_epoch || lock_all || held[t] != Held::none || in_access[t];
  }
};

using WinPtr = std::shared_ptr<Window>;

// ---- handles (windows live in their own table, MPICH's object type 8)
// Touched only inside MPI calls. A global, not a function's static:
// MPI_Put and MPI_Get look their window up on every call, and the static's
// guard cost them a call and 20 instructions. Never destroyed: a window the
// program left unfreed must not be torn down at exit after the state its
// communicator refers to (the order of globals' destructors across files
// is not defined).
extern HandleTable<WinPtr>& g_window_table;
inline HandleTable<WinPtr>& window_table() { return g_window_table; }
// Null for MPI_WIN_NULL, a freed window or a handle of another kind.
inline Window* find_window(MPI_Win handle) {
  WinPtr* w = window_table().find(handle);
  return w ? w->get() : nullptr;
}
// MPI_SUCCESS, or MPI_ERR_WIN with the detail recorded.
int lookup_window(MPI_Win handle, Window*& out);

// Raises through the window's error handler (MPI_ERRORS_ARE_FATAL unless
// set); win == nullptr: as raise(nullptr, ...).
int raise_win(const Window* win, const char* function, int code);

// ---- creation and destruction (collective over comm); window.cc
// base/size: this rank's memory (allocate: size bytes from
// alloc_registered, returned in *base).
int create_window(const CommPtr& comm, void* base, MPI_Aint size, int disp_unit, int flavor,
                  void** allocated, MPI_Win* out);
int free_window(MPI_Win handle);
// Runs the delete callbacks of the window's user attributes (win_attr.cc).
int delete_window_attributes(Window& w);

// ---- completion (window.cc)
// Waits for every request to `target` (comm rank) to complete at the
// target; returns the first remote error as an MPI class (and clears it).
int flush_target(Window& win, int target);
int flush_all(Window& win);
// Takes / releases a passive-target lock (lock word at the target).
int acquire_lock(Window& win, int target, Held kind);
int release_lock(Window& win, int target);

// ---- operations (ops.cc); arguments already validated
struct Side {
  const void* addr = nullptr;  // origin / result buffer
  std::int64_t count = 0;
  // Valid for the call that names it (no reference count on every access:
  // what outlives the call takes its own, see Pending::result_type).
  const Datatype* type = nullptr;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
};
enum class Kind : std::uint8_t { put, get, accumulate, get_accumulate, compare_and_swap };
struct OpArgs {
  Kind kind = Kind::put;
  Side origin;         // put/acc data; cas: the new value
  Side result;         // get: the destination; get_accumulate/cas: the old values
  const void* compare = nullptr;  // cas
  int target = 0;      // comm rank
  MPI_Aint disp = 0;   // in target disp units
  Side target_side;    // count and type at the target (addr unused)
  int op = 0;          // OpKind for accumulates
};
int issue(Window& win, const OpArgs& args);

// Registers the protocol handlers with lapi (once per process, collective
// in effect: every rank creates its first window at the same point).
int ensure_protocol_registered();

}  // namespace mpi::rma
