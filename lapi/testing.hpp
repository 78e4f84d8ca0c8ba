#pragma once
// Test-only hooks into the core: inject raw protocol messages so tests can
// check that a target refuses malformed or hostile requests.

#include <cstddef>
#include <cstdint>

#include "lapi/context.hpp"

namespace lapi::testing {

// Sends a raw UCX active message with protocol id `am_id` and the given
// header bytes (no Lapis framing added) to `tgt`, and waits until it was sent.
Status send_raw(Context& ctx, TaskId tgt, unsigned am_id, const void* header,
                std::size_t header_len, const void* data, std::size_t data_len);

}  // namespace lapi::testing
