#include "mpcpi/internal/match_queues.hpp"

#include <cstddef>

namespace mpcpi::detail {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

std::uint64_t pack(std::uint32_t hi, int lo) {
  return (std::uint64_t{hi} << 32) | static_cast<std::uint32_t>(lo);
}

// Head of the list under `key`, or nullptr.
template <class Map, class Key>
ListHook* head_of(Map& map, const Key& key) {
  auto where = map.find(key);
  if (where == map.end() || where->second.empty()) return nullptr;
  return where->second.front();
}

template <class Map>
void erase_empty(Map& map) {
  for (auto it = map.begin(); it != map.end();) {
    if (it->second.empty()) {
      it = map.erase(it);
    } else {
      ++it;
    }
  }
}

// Empty list heads are kept (a ping-pong reuses one key all the time) and
// swept once the maps hold clearly more keys than live entries.
constexpr std::size_t kSweepSlack = 64;

}  // namespace

std::size_t KeyHash::operator()(const Key3& k) const {
  return mix(pack(k.context, k.source) ^ mix(static_cast<std::uint32_t>(k.tag)));
}
std::size_t KeyHash::operator()(const Key2& k) const { return mix(pack(k.context, k.value)); }

// ---- PostedQueue --------------------------------------------------------

HookList* PostedQueue::find_exact(const Key3& key) {
  if (cached_list_ != nullptr && key == cached_key_) return cached_list_;
  auto it = exact_.find(key);
  if (it == exact_.end()) return nullptr;
  cached_key_ = key;
  cached_list_ = &it->second;
  return cached_list_;
}

HookList& PostedQueue::exact_list(const Key3& key) {
  if (cached_list_ != nullptr && key == cached_key_) return *cached_list_;
  HookList& list = exact_[key];
  cached_key_ = key;
  cached_list_ = &list;
  return list;
}

void PostedQueue::post_slow(PostedEntry& entry) {
  entry.stamp = next_stamp_++;
  const bool any_src = entry.source == kWildcard;
  const bool any_tag = entry.tag == kWildcard;
  if (!any_src && !any_tag) {
    exact_list(Key3{entry.context, entry.source, entry.tag}).push_back(entry.hook);
  } else if (!any_src) {
    any_tag_[Key2{entry.context, entry.source}].push_back(entry.hook);
    ++n_any_tag_;
  } else if (!any_tag) {
    any_source_[Key2{entry.context, entry.tag}].push_back(entry.hook);
    ++n_any_source_;
  } else {
    any_both_[entry.context].push_back(entry.hook);
    ++n_any_both_;
  }
  ++size_;
  if (exact_.size() + any_tag_.size() + any_source_.size() + any_both_.size() >
      4 * size_ + kSweepSlack)
    collect_empty_lists();
}

PostedEntry* PostedQueue::match_slow(std::uint32_t context, int source, int tag) {
  const HookList* exact = find_exact(Key3{context, source, tag});
  PostedEntry* best = exact != nullptr && !exact->empty() ? posted_of(exact->front()) : nullptr;
  std::size_t* wildcard_count = nullptr;
  // Wildcard lists are consulted only while such receives exist, so the
  // common exact-only case costs a single lookup.
  auto consider = [&](ListHook* head, std::size_t* count) {
    if (head == nullptr) return;
    PostedEntry* e = posted_of(head);
    if (best == nullptr || e->stamp < best->stamp) {
      best = e;
      wildcard_count = count;
    }
  };
  if (n_any_tag_ != 0) consider(head_of(any_tag_, Key2{context, source}), &n_any_tag_);
  if (n_any_source_ != 0) consider(head_of(any_source_, Key2{context, tag}), &n_any_source_);
  if (n_any_both_ != 0) consider(head_of(any_both_, context), &n_any_both_);
  if (best == nullptr) return nullptr;
  best->hook.unlink();
  if (wildcard_count != nullptr) --*wildcard_count;
  --size_;
  return best;
}

bool PostedQueue::remove(PostedEntry& entry) {
  if (!entry.hook.linked()) return false;
  entry.hook.unlink();
  const bool any_src = entry.source == kWildcard;
  const bool any_tag = entry.tag == kWildcard;
  if (any_src && any_tag) {
    --n_any_both_;
  } else if (any_src) {
    --n_any_source_;
  } else if (any_tag) {
    --n_any_tag_;
  }
  --size_;
  return true;
}

void PostedQueue::collect_empty_lists() {
  cached_list_ = nullptr;
  erase_empty(exact_);
  erase_empty(any_tag_);
  erase_empty(any_source_);
  erase_empty(any_both_);
}

// ---- ArrivedQueue -------------------------------------------------------

ArrivedEntry* ArrivedQueue::entry_of(ListHook* hook, int index) {
  return reinterpret_cast<ArrivedEntry*>(reinterpret_cast<char*>(hook - index) -
                                         offsetof(ArrivedEntry, hooks));
}

void ArrivedQueue::push(ArrivedEntry& entry) {
  entry.stamp = next_stamp_++;
  exact_[Key3{entry.context, entry.source, entry.tag}].push_back(entry.hooks[0]);
  by_source_[Key2{entry.context, entry.source}].push_back(entry.hooks[1]);
  by_tag_[Key2{entry.context, entry.tag}].push_back(entry.hooks[2]);
  by_context_[entry.context].push_back(entry.hooks[3]);
  ++size_;
  if (exact_.size() + by_source_.size() + by_tag_.size() > 3 * size_ + kSweepSlack)
    collect_empty_lists();
}

ArrivedEntry* ArrivedQueue::find(std::uint32_t context, int source, int tag) const {
  if (size_ == 0) return nullptr;
  const bool any_src = source == kWildcard;
  const bool any_tag = tag == kWildcard;
  const HookList* list = nullptr;
  int index = 0;
  if (!any_src && !any_tag) {
    auto it = exact_.find(Key3{context, source, tag});
    if (it != exact_.end()) list = &it->second;
    index = 0;
  } else if (!any_src) {
    auto it = by_source_.find(Key2{context, source});
    if (it != by_source_.end()) list = &it->second;
    index = 1;
  } else if (!any_tag) {
    auto it = by_tag_.find(Key2{context, tag});
    if (it != by_tag_.end()) list = &it->second;
    index = 2;
  } else {
    auto it = by_context_.find(context);
    if (it != by_context_.end()) list = &it->second;
    index = 3;
  }
  if (list == nullptr || list->empty()) return nullptr;
  return entry_of(list->front(), index);
}

void ArrivedQueue::remove(ArrivedEntry& entry) {
  if (!entry.hooks[0].linked()) return;
  for (ListHook& h : entry.hooks) h.unlink();
  --size_;
}

void ArrivedQueue::collect_empty_lists() {
  erase_empty(exact_);
  erase_empty(by_source_);
  erase_empty(by_tag_);
  erase_empty(by_context_);
}

}  // namespace mpcpi::detail
