#pragma once
// Scheduling attributes of the engine's own threads (Linux).

namespace lapi::internal {

// Gives the calling thread the nice value `nice`, or the lowest one
// RLIMIT_NICE permits when the process may not go that low. Returns the
// thread's nice value afterwards.
int set_thread_nice(int nice);

// Names the calling thread (shown by top -H, ps -L and /proc; 15 bytes).
void name_thread(const char* name);

}  // namespace lapi::internal
