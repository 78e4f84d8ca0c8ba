#pragma once
// What this task is blocked on, for lapirun's hang report: a few words of
// plain memory that gdb reads from a hung rank (`x/8dw &lapis_wait_state`,
// runtime/internal/hang_report.cc) without debug information. Written only
// when a wait has to block (never on the fast path) and cleared when it
// returns; with several threads blocked, the last one to block shows.

#include <atomic>
#include <cstdint>

namespace mpcpi {

enum WaitField : int {
  kWaitMagic,       // kWaitStateMagic while the fields below mean something
  kWaitKind,        // WaitKind
  kWaitPeer,        // source (kAnySource -1 ...) or destination
  kWaitTag,
  kWaitContext,     // the engine context (MPI: the communicator's)
  kWaitPosted,      // receives posted and not matched
  kWaitUnexpected,  // messages arrived and not matched
  kWaitFields = 8,
};
inline constexpr std::int32_t kWaitStateMagic = 0x4c415057;  // "WPAL"
enum class WaitKind : std::int32_t { none, recv, send, probe };

// Records a blocking wait for its lifetime.
class WaitNote {
 public:
  WaitNote(WaitKind kind, int peer, int tag, std::uint32_t context, std::size_t posted,
           std::size_t unexpected);
  ~WaitNote();
  WaitNote(const WaitNote&) = delete;
  WaitNote& operator=(const WaitNote&) = delete;
};

}  // namespace mpcpi

// The words themselves (layout: WaitField), exported under a C name.
extern "C" std::atomic<std::int32_t> lapis_wait_state[mpcpi::kWaitFields];
