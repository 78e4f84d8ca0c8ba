#pragma once
// The windows' Amsend protocol: one request handler at the target, one
// answer handler at the origin (lapi handler ids kRequestHandler and
// kAnswerHandler, below mpcpi's range).
//
// A request's data is the target layout as (offset, length) blocks of one
// instance, then the packed payload (put/accumulate data; compare-and-swap:
// new value then compare value). The target checks every block against its
// window, runs the request under the window's acc_lock in the origin's
// issue order (sequence numbers: lapi does not order Amsends) and answers
// with the fetched bytes (get, get_accumulate, compare-and-swap), nothing
// (put, accumulate) or an MPI error class.

#include <cstdint>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "mpi/internal/rma/window.hpp"

namespace mpi::rma {

inline constexpr lapi::HandlerId kRequestHandler = 200;
inline constexpr lapi::HandlerId kAnswerHandler = 201;

struct RequestWire {
  std::uint8_t kind = 0;   // Kind
  std::uint8_t op = 0;     // OpKind (accumulates)
  std::uint16_t pad = 0;
  std::int32_t element_id = 0;  // predefined element type of the target layout (accumulates)
  std::uint32_t win_id = 0;
  std::uint32_t nblocks = 0;
  std::uint64_t seq = 0;        // per (origin, window, target), from 1
  std::uint64_t disp = 0;       // byte offset of instance 0 in the target window
  std::int64_t count = 0;       // instances of the layout
  std::int64_t extent = 0;      // bytes between instances
  std::uint64_t payload = 0;    // packed bytes after the blocks
  std::uint64_t answer = 0;     // bytes the answer carries
  std::uint64_t cookie = 0;     // the origin's Pending
};

struct AnswerWire {
  std::uint64_t cookie = 0;
  std::int32_t error = 0;  // MPI class, 0 = done
  std::uint32_t pad = 0;
};

struct WireBlock {
  std::int64_t offset;
  std::int64_t len;
};

// An origin-side request waiting for its answer. Owns the bytes it sent
// (Amsend reads them until the answer proves they landed).
struct Pending {
  WinPtr win;
  int target = 0;
  std::vector<std::byte> sent;
  std::uint64_t answer_bytes = 0;
  void* answer_into = nullptr;       // user's buffer (contiguous) or staging
  std::vector<std::byte> staging;
  TypePtr result_type;               // unpack staging into result_user
  void* result_user = nullptr;
  std::int64_t result_count = 0;
};

// Windows by registry id, for the handlers.
std::uint32_t register_window(const WinPtr& win);
void unregister_window(std::uint32_t id);

// Remembers `p` until its answer; returns its cookie.
std::uint64_t track(std::unique_ptr<Pending> p);
// Frees answer buffers whose sends finished (called from MPI calls).
void reap_answers();

}  // namespace mpi::rma
