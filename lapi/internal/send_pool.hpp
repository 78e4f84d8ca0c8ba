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
  std::uint32_t tgt = 0;            // the task it goes to (post_op_locked)
  bool live = false;                // acquired, UCX not done with it yet
  std::uint32_t header_len = 0;
  alignas(8) std::byte header[kSendHeaderCapacity];
};

// Free list of SendOps; callers hold the engine lock.
class SendPool {
 public:
  SendOp* acquire() {
    SendOp* op = nullptr;
    if (free_.empty()) {
      owned_.push_back(std::make_unique<SendOp>());
      op = owned_.back().get();
    } else {
      op = free_.back();
      free_.pop_back();
    }
    op->live = true;
    return op;
  }
  void release(SendOp* op) {
    op->origin = nullptr;
    op->live = false;
    free_.push_back(op);
  }
  // Every SendOp UCX still holds (a failed target's, for one).
  template <typename F>
  void for_each_live(F f) {
    for (const auto& op : owned_) {
      if (op->live) f(*op);
    }
  }

 private:
  std::vector<std::unique_ptr<SendOp>> owned_;
  std::vector<SendOp*> free_;
};

}  // namespace lapi::internal
