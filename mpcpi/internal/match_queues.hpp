#pragma once
// The two MPI matching queues, without any transport:
//
//   PostedQueue   receives waiting for a message   (searched by each arrival)
//   ArrivedQueue  messages waiting for a receive   (searched by each receive)
//
// Both are hashed so that the common case (source and tag known) costs one
// lookup, not a scan:
//   * a posted receive sits in exactly one list, chosen by its wildcards:
//     (ctx,src,tag), (ctx,src,*), (ctx,*,tag) or (ctx,*,*). An arriving
//     message looks at the heads of the (at most) four lists it could match
//     and takes the one with the smallest posting stamp.
//   * an arrived message sits in four lists at once: (ctx,src,tag),
//     (ctx,src), (ctx,tag) and (ctx). A receive looks at the head of the one
//     list its wildcards select; lists are in arrival order, so the head is
//     the earliest match.
// The caller inserts arrivals from one sender in that sender's send order
// (the engine's sequence numbers guarantee it), which makes every head
// non-overtaking-correct.
//
// Not thread-safe: the engine's lock guards both queues.

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "mpcpi/internal/intrusive_list.hpp"

namespace mpcpi::detail {

inline constexpr int kWildcard = -1;  // equals mpcpi::kAnySource and kAnyTag

struct Key3 {
  std::uint32_t context;
  int source;
  int tag;
  bool operator==(const Key3&) const = default;
};
struct Key2 {
  std::uint32_t context;
  int value;  // a source or a tag
  bool operator==(const Key2&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key3& k) const;
  std::size_t operator()(const Key2& k) const;
};

template <class Key>
using ListMap = std::unordered_map<Key, HookList, KeyHash>;
using CtxListMap = std::unordered_map<std::uint32_t, HookList>;

// A posted receive; the engine's receive request embeds one.
struct PostedEntry {
  std::uint32_t context = 0;
  int source = kWildcard;
  int tag = kWildcard;
  std::uint64_t stamp = 0;  // posting order, set by PostedQueue::post
  ListHook hook;
};

class PostedQueue {
 public:
  PostedQueue() = default;
  PostedQueue(const PostedQueue&) = delete;
  PostedQueue& operator=(const PostedQueue&) = delete;

  // A ping-pong or a stream posts to and matches from the same exact list
  // over and over: that case is inline, through a one-entry cache.
  void post(PostedEntry& entry) { post(entry, Key3{entry.context, entry.source, entry.tag}); }
  // The same, with the entry's own key passed by value (in registers) by a
  // caller that has just stored it: comparing the entry with the cache, the
  // compiler reloads source and tag with one 8-byte load, which the store
  // buffer cannot forward from two 4-byte stores (11% of MPI_Irecv's time
  // in an 8 B stream, perf).
  void post(PostedEntry& entry, Key3 key) {
    if (is_cached(key.context, key.source, key.tag)) {
      entry.stamp = next_stamp_++;
      cached_list_->push_back(entry.hook);
      ++size_;
      return;
    }
    post_slow(entry);
  }
  // The earliest-posted receive that a message (context, source, tag)
  // matches, removed from the queue; nullptr when none. source and tag are
  // concrete values here.
  PostedEntry* match(std::uint32_t context, int source, int tag) {
    if (size_ == 0) return nullptr;
    if (n_any_tag_ + n_any_source_ + n_any_both_ == 0 && is_cached(context, source, tag)) {
      // No wildcard receive is posted: the exact list is the only candidate.
      if (cached_list_->empty()) return nullptr;
      ListHook* hook = cached_list_->front();
      hook->unlink();
      --size_;
      return posted_of(hook);
    }
    return match_slow(context, source, tag);
  }
  // Removes a queued entry (cancel). False if it was not queued.
  bool remove(PostedEntry& entry);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The queued receives that name `source` itself (not any source), for a
  // failed peer's: rare, walks the whole index.
  std::vector<PostedEntry*> posted_from(int source) const {
    std::vector<PostedEntry*> found;
    for (const auto& [k, l] : exact_)
      if (k.source == source) append_all(l, found);
    for (const auto& [k, l] : any_tag_)
      if (k.value == source) append_all(l, found);
    return found;
  }

  // The queued receives of `context`, whatever their source (rare).
  std::vector<PostedEntry*> posted_in(std::uint32_t context) const {
    std::vector<PostedEntry*> found;
    for (const auto& [k, l] : exact_)
      if (k.context == context) append_all(l, found);
    for (const auto& [k, l] : any_tag_)
      if (k.context == context) append_all(l, found);
    for (const auto& [k, l] : any_source_)
      if (k.context == context) append_all(l, found);
    if (auto it = any_both_.find(context); it != any_both_.end()) append_all(it->second, found);
    return found;
  }

  // Calls fn(context) for each context in which a queued receive names
  // `source` or any source (a context may repeat). For rare decisions
  // (flow-control pulls): it walks the whole index.
  template <class Fn>
  void for_each_context_for(int source, Fn&& fn) const {
    for (const auto& [k, l] : exact_)
      if (!l.empty() && k.source == source) fn(k.context);
    for (const auto& [k, l] : any_tag_)
      if (!l.empty() && k.value == source) fn(k.context);
    for (const auto& [k, l] : any_source_)
      if (!l.empty()) fn(k.context);
    for (const auto& [c, l] : any_both_)
      if (!l.empty()) fn(c);
  }

 private:
  static void append_all(const HookList& l, std::vector<PostedEntry*>& out) {
    for (ListHook* h = l.front(); h != nullptr; h = l.next(*h)) out.push_back(posted_of(h));
  }
  static PostedEntry* posted_of(ListHook* hook) {
    return reinterpret_cast<PostedEntry*>(reinterpret_cast<char*>(hook) -
                                          offsetof(PostedEntry, hook));
  }
  // The cached key never holds a wildcard (only exact lists are cached).
  bool is_cached(std::uint32_t context, int source, int tag) const {
    return cached_list_ != nullptr && cached_key_.context == context &&
           cached_key_.source == source && cached_key_.tag == tag;
  }
  [[gnu::noinline]] void post_slow(PostedEntry& entry);
  PostedEntry* match_slow(std::uint32_t context, int source, int tag);
  void collect_empty_lists();
  // The exact list for `key`, through a one-entry cache: a ping-pong or a
  // stream posts and matches the same (ctx, src, tag) over and over.
  HookList* find_exact(const Key3& key);
  HookList& exact_list(const Key3& key);

  Key3 cached_key_{};
  HookList* cached_list_ = nullptr;  // exact_[cached_key_]; reset by collect_empty_lists
  ListMap<Key3> exact_;       // (ctx, src, tag)
  ListMap<Key2> any_tag_;     // (ctx, src), tag = any
  ListMap<Key2> any_source_;  // (ctx, tag), source = any
  CtxListMap any_both_;       // (ctx)
  std::size_t n_any_tag_ = 0, n_any_source_ = 0, n_any_both_ = 0;
  std::size_t size_ = 0;
  std::uint64_t next_stamp_ = 1;
};

// A message waiting for its receive; the engine's arrival record embeds one.
struct ArrivedEntry {
  std::uint32_t context = 0;
  int source = 0;
  int tag = 0;
  std::uint64_t stamp = 0;  // arrival order, set by ArrivedQueue::push
  // exact, by (context, source), by (context, tag), by context
  ListHook hooks[4];
};

class ArrivedQueue {
 public:
  ArrivedQueue() = default;
  ArrivedQueue(const ArrivedQueue&) = delete;
  ArrivedQueue& operator=(const ArrivedQueue&) = delete;

  void push(ArrivedEntry& entry);
  // The earliest queued message a receive (context, source or kWildcard,
  // tag or kWildcard) matches; it stays queued. nullptr when none.
  ArrivedEntry* find(std::uint32_t context, int source, int tag) const;
  void remove(ArrivedEntry& entry);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The oldest queued message from `source` in `context` for which pred
  // returns true; nullptr when none. Linear in that sender's backlog.
  template <class Pred>
  ArrivedEntry* find_from_if(std::uint32_t context, int source, Pred&& pred) const {
    auto it = by_source_.find(Key2{context, source});
    if (it == by_source_.end()) return nullptr;
    for (ListHook* h = it->second.front(); h != nullptr; h = it->second.next(*h)) {
      ArrivedEntry* e = entry_of(h, 1);
      if (pred(*e)) return e;
    }
    return nullptr;
  }

  // Calls fn(entry) for every queued entry, oldest first (teardown).
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [c, l] : by_context_)
      for (ListHook* h = l.front(); h != nullptr; h = l.next(*h)) fn(*entry_of(h, 3));
  }

 private:
  static ArrivedEntry* entry_of(ListHook* hook, int index);
  void collect_empty_lists();

  ListMap<Key3> exact_;
  ListMap<Key2> by_source_;
  ListMap<Key2> by_tag_;
  CtxListMap by_context_;
  std::size_t size_ = 0;
  std::uint64_t next_stamp_ = 1;
};

}  // namespace mpcpi::detail
