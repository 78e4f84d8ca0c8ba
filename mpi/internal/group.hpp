#pragma once
// Groups: an ordered list of distinct world task ids, the group rank being
// the position. Pure set algebra; argument checking (distinct, in-range
// ranks) happens here and reports which argument was bad.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace mpi {

struct Session;

class Group {
 public:
  Group() = default;
  explicit Group(std::vector<int> members);
  Group(std::vector<int> members, std::weak_ptr<Session> from)
      : Group(std::move(members)) {
    session = std::move(from);
  }

  int size() const { return static_cast<int>(members_.size()); }
  // World task id of group rank r (0 <= r < size()).
  int world_of(int rank) const { return members_[rank]; }
  // Group rank of world task id w, or -1 when w is not a member.
  int rank_of(int world) const;
  const std::vector<int>& members() const { return members_; }

  // The session it comes from (MPI_Group_from_session_pset, and the groups
  // made from such a group), passed on to the communicators made from it:
  // their buffered sends fall back on the session's buffer (MPI 4.1).
  std::weak_ptr<Session> session;

 private:
  std::vector<int> members_;
  // members_[r] == r for all r (MPI_COMM_WORLD and its dups): no map needed.
  bool identity_ = true;
  std::unordered_map<int, int> rank_of_;
};

using GroupPtr = std::shared_ptr<const Group>;

// Result of an operation that can reject its arguments: `error` is empty on
// success, else a sentence naming the bad argument (the class is
// MPI_ERR_RANK for rank lists, MPI_ERR_ARG for malformed ranges).
struct GroupResult {
  GroupPtr group;
  int error_class = 0;
  std::string error;
};

GroupResult group_incl(const Group& g, std::span<const int> ranks);
GroupResult group_excl(const Group& g, std::span<const int> ranks);
// ranges: n triplets (first, last, stride).
GroupResult group_range_incl(const Group& g, std::span<const int> ranges);
GroupResult group_range_excl(const Group& g, std::span<const int> ranges);
GroupPtr group_union(const Group& a, const Group& b);
GroupPtr group_intersection(const Group& a, const Group& b);
GroupPtr group_difference(const Group& a, const Group& b);
// MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL.
int group_compare(const Group& a, const Group& b);
// ranks2[i] = rank in b of a's rank ranks1[i] (MPI_UNDEFINED if absent,
// MPI_PROC_NULL stays). Returns false with `error` set on an invalid rank.
bool group_translate(const Group& a, std::span<const int> ranks1, const Group& b,
                     std::span<int> ranks2, std::string& error);

}  // namespace mpi
