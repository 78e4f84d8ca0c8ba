#include "lapi/c_api/handles.hpp"

#include "lapi/c_api/errors.hpp"

namespace lapi::c_api {
namespace {

struct Slot {
  std::atomic<lapi_handle_t> handle{0};  // 0: not live
  std::atomic<HandleState*> state{nullptr};
  lapi_handle_t generation = 0;  // guarded by g_table_mu
  bool taken = false;            // guarded by g_table_mu
};

std::mutex g_table_mu;  // guards Slot::generation and Slot::taken
std::array<Slot, kMaxHandles> g_slots;

}  // namespace

HandleState* find_handle(lapi_handle_t h) {
  Slot& slot = g_slots[h % kMaxHandles];
  if (h == 0 || slot.handle.load(std::memory_order_acquire) != h) return nullptr;
  return slot.state.load(std::memory_order_acquire);
}

lapi_handle_t handle_of(const Context& ctx) {
  for (Slot& slot : g_slots) {
    HandleState* state = slot.state.load(std::memory_order_acquire);
    if (state != nullptr && state->ctx.get() == &ctx) return state->handle;
  }
  return 0;
}

bool reserve_handle(HandleState& state) {
  std::lock_guard lock(g_table_mu);
  for (unsigned i = 0; i < kMaxHandles; ++i) {
    Slot& slot = g_slots[i];
    if (slot.taken) continue;
    slot.taken = true;
    ++slot.generation;  // starts at 1, so no handle is 0
    state.handle = slot.generation * kMaxHandles + i;
    return true;
  }
  return false;
}

void publish_handle(HandleState* state) {
  Slot& slot = g_slots[state->handle % kMaxHandles];
  slot.state.store(state, std::memory_order_release);
  slot.handle.store(state->handle, std::memory_order_release);
}

void release_handle(const HandleState& state) {
  Slot& slot = g_slots[state.handle % kMaxHandles];
  std::lock_guard lock(g_table_mu);
  slot.handle.store(0, std::memory_order_release);
  slot.state.store(nullptr, std::memory_order_release);
  slot.taken = false;
}

int bad_handle(const char* function, lapi_handle_t h) {
  return reject(LAPI_ERR_HNDL_INVALID, function,
                "hndl={} is not a live handle (not returned by LAPI_Init, or terminated)", h);
}

}  // namespace lapi::c_api
