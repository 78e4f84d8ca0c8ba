#include "mpi/internal/group.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "mpi.h"

namespace mpi {

Group::Group(std::vector<int> members) : members_(std::move(members)) {
  for (int r = 0; r < size(); ++r) identity_ = identity_ && members_[r] == r;
  if (identity_) return;
  rank_of_.reserve(members_.size());
  for (int r = 0; r < size(); ++r) rank_of_.emplace(members_[r], r);
}

int Group::rank_of(int world) const {
  if (identity_) return world >= 0 && world < size() ? world : -1;
  auto it = rank_of_.find(world);
  return it == rank_of_.end() ? -1 : it->second;
}

namespace {

// Checks that each rank is in range and appears once.
bool check_ranks(const Group& g, std::span<const int> ranks, GroupResult& out) {
  std::vector<bool> seen(g.size(), false);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    int r = ranks[i];
    if (r < 0 || r >= g.size()) {
      out.error_class = MPI_ERR_RANK;
      out.error = fmt::format("ranks[{}]={} is not a rank of the group (0..{})", i, r, g.size() - 1);
      return false;
    }
    if (seen[r]) {
      out.error_class = MPI_ERR_RANK;
      out.error = fmt::format("ranks[{}]={} appears twice", i, r);
      return false;
    }
    seen[r] = true;
  }
  return true;
}

// Expands (first, last, stride) triplets into ranks.
bool expand_ranges(const Group& g, std::span<const int> ranges, std::vector<int>& ranks,
                   GroupResult& out) {
  for (std::size_t i = 0; i + 2 < ranges.size(); i += 3) {
    int first = ranges[i], last = ranges[i + 1], stride = ranges[i + 2];
    if (stride == 0 || (stride > 0 && first > last) || (stride < 0 && first < last)) {
      out.error_class = MPI_ERR_ARG;
      out.error = fmt::format("ranges[{}] = ({}, {}, {}) is not a valid range", i / 3, first, last,
                              stride);
      return false;
    }
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      ranks.push_back(static_cast<int>(r));
      if (ranks.size() > static_cast<std::size_t>(g.size())) break;  // duplicates; caught below
    }
  }
  return check_ranks(g, ranks, out);
}

}  // namespace

GroupResult group_incl(const Group& g, std::span<const int> ranks) {
  GroupResult out;
  if (!check_ranks(g, ranks, out)) return out;
  std::vector<int> members;
  members.reserve(ranks.size());
  for (int r : ranks) members.push_back(g.world_of(r));
  out.group = std::make_shared<Group>(std::move(members), g.session);
  return out;
}

GroupResult group_excl(const Group& g, std::span<const int> ranks) {
  GroupResult out;
  if (!check_ranks(g, ranks, out)) return out;
  std::vector<bool> drop(g.size(), false);
  for (int r : ranks) drop[r] = true;
  std::vector<int> members;
  for (int r = 0; r < g.size(); ++r) {
    if (!drop[r]) members.push_back(g.world_of(r));
  }
  out.group = std::make_shared<Group>(std::move(members), g.session);
  return out;
}

GroupResult group_range_incl(const Group& g, std::span<const int> ranges) {
  GroupResult out;
  std::vector<int> ranks;
  if (!expand_ranges(g, ranges, ranks, out)) return out;
  return group_incl(g, ranks);
}

GroupResult group_range_excl(const Group& g, std::span<const int> ranges) {
  GroupResult out;
  std::vector<int> ranks;
  if (!expand_ranges(g, ranges, ranks, out)) return out;
  return group_excl(g, ranks);
}

namespace {
// A group made from two takes the first's session, else the second's.
std::weak_ptr<Session> session_of(const Group& a, const Group& b) {
  return a.session.expired() ? b.session : a.session;
}
}  // namespace

GroupPtr group_union(const Group& a, const Group& b) {
  std::vector<int> members = a.members();
  for (int w : b.members()) {
    if (a.rank_of(w) < 0) members.push_back(w);
  }
  return std::make_shared<Group>(std::move(members), session_of(a, b));
}

GroupPtr group_intersection(const Group& a, const Group& b) {
  std::vector<int> members;
  for (int w : a.members()) {
    if (b.rank_of(w) >= 0) members.push_back(w);
  }
  return std::make_shared<Group>(std::move(members), session_of(a, b));
}

GroupPtr group_difference(const Group& a, const Group& b) {
  std::vector<int> members;
  for (int w : a.members()) {
    if (b.rank_of(w) < 0) members.push_back(w);
  }
  return std::make_shared<Group>(std::move(members), session_of(a, b));
}

int group_compare(const Group& a, const Group& b) {
  if (a.members() == b.members()) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  for (int w : a.members()) {
    if (b.rank_of(w) < 0) return MPI_UNEQUAL;
  }
  return MPI_SIMILAR;
}

bool group_translate(const Group& a, std::span<const int> ranks1, const Group& b,
                     std::span<int> ranks2, std::string& error) {
  for (std::size_t i = 0; i < ranks1.size(); ++i) {
    int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= a.size()) {
      error = fmt::format("ranks1[{}]={} is not a rank of group1 (0..{})", i, r, a.size() - 1);
      return false;
    }
    int t = b.rank_of(a.world_of(r));
    ranks2[i] = t < 0 ? MPI_UNDEFINED : t;
  }
  return true;
}

}  // namespace mpi
