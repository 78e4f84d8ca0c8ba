#pragma once
// Circular doubly linked intrusive list with a sentinel. An element unlinks
// itself in O(1) without knowing which list holds it, which lets one
// early-arrival entry sit in several match lists at once.

#include <cstddef>

namespace mpcpi::detail {

struct ListHook {
  ListHook* prev = nullptr;
  ListHook* next = nullptr;

  bool linked() const { return next != nullptr; }
  void unlink() {
    prev->next = next;
    next->prev = prev;
    prev = next = nullptr;
  }
};

// The list head. Neither copyable nor movable: the sentinel's address is part
// of the list (node-based containers construct it in place).
class HookList {
 public:
  HookList() { head_.prev = head_.next = &head_; }
  HookList(const HookList&) = delete;
  HookList& operator=(const HookList&) = delete;

  bool empty() const { return head_.next == &head_; }
  ListHook* front() const { return empty() ? nullptr : head_.next; }
  void push_back(ListHook& hook) {
    hook.prev = head_.prev;
    hook.next = &head_;
    head_.prev->next = &hook;
    head_.prev = &hook;
  }
  // Next element after `hook`, or nullptr at the end.
  ListHook* next(const ListHook& hook) const { return hook.next == &head_ ? nullptr : hook.next; }

 private:
  ListHook head_;
};

}  // namespace mpcpi::detail
