#pragma once
// UCX 1.13 reads an active message's header until the send completes (the
// copy-header flag arrived in 1.14), so every send's header lives in a
// pooled SendOp until UCX reports completion. The record also carries what
// completion must do at the origin.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "counters/counter.hpp"

namespace lapi::internal {

inline constexpr std::size_t kSendHeaderCapacity = 1024;

struct SendOp {
  void* engine = nullptr;
  Counter* origin = nullptr;        // bumped when the origin buffer is reusable
  std::uint32_t header_len = 0;
  alignas(8) std::byte header[kSendHeaderCapacity];
};

// Free list of SendOps; callers hold the engine lock.
class SendPool {
 public:
  SendOp* acquire() {
    if (free_.empty()) {
      owned_.push_back(std::make_unique<SendOp>());
      return owned_.back().get();
    }
    SendOp* op = free_.back();
    free_.pop_back();
    return op;
  }
  void release(SendOp* op) {
    op->origin = nullptr;
    free_.push_back(op);
  }

 private:
  std::vector<std::unique_ptr<SendOp>> owned_;
  std::vector<SendOp*> free_;
};

}  // namespace lapi::internal
