// MPI_Group_*: handle lookup around the group algebra of internal/group.hpp.
#include <span>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

int mpi::store_group(GroupPtr g, MPI_Group* out) {
  if (g->size() == 0) {
    *out = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
  }
  MPI_Group h = state().groups.insert(std::move(g));
  if (h == MPI_GROUP_NULL) return fail(MPI_ERR_INTERN, "too many groups");
  *out = h;
  return MPI_SUCCESS;
}

namespace {

int check_n(int n, const void* ranks, const char* arg) {
  if (n < 0) return fail(MPI_ERR_ARG, "n={} is negative", n);
  if (n > 0 && ranks == nullptr) return fail(MPI_ERR_ARG, "{} is NULL with n={}", arg, n);
  return MPI_SUCCESS;
}

// incl / excl / range_incl / range_excl share this shape.
template <typename Op>
int subset(const char* fn, MPI_Group group, int n, const int* ints, int ints_per_entry,
           MPI_Group* newgroup, Op op) {
  if (int rc = check_running(fn)) return rc;
  GroupPtr g;
  int rc = lookup_group(group, g);
  if (rc == MPI_SUCCESS) rc = check_n(n, ints, ints_per_entry == 1 ? "ranks" : "ranges");
  if (rc == MPI_SUCCESS) rc = check_not_null(newgroup, "newgroup");
  if (rc == MPI_SUCCESS) {
    GroupResult r = op(*g, std::span<const int>(ints, static_cast<std::size_t>(n) * ints_per_entry));
    rc = r.group ? store_group(r.group, newgroup) : fail(r.error_class, "{}", r.error);
  }
  return raise(nullptr, fn, rc);
}

template <typename Op>
int combine(const char* fn, MPI_Group a, MPI_Group b, MPI_Group* newgroup, Op op) {
  if (int rc = check_running(fn)) return rc;
  GroupPtr ga, gb;
  int rc = lookup_group(a, ga, "group1");
  if (rc == MPI_SUCCESS) rc = lookup_group(b, gb, "group2");
  if (rc == MPI_SUCCESS) rc = check_not_null(newgroup, "newgroup");
  if (rc == MPI_SUCCESS) rc = store_group(op(*ga, *gb), newgroup);
  return raise(nullptr, fn, rc);
}

}  // namespace

extern "C" int MPI_Group_size(MPI_Group group, int* size) {
  const ApiCall call("MPI_Group_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_size";
  if (int rc = check_running(kFn)) return rc;
  GroupPtr g;
  int rc = lookup_group(group, g);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *size = g->size();
  return MPI_SUCCESS;
}

extern "C" int MPI_Group_rank(MPI_Group group, int* rank) {
  const ApiCall call("MPI_Group_rank");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_rank";
  if (int rc = check_running(kFn)) return rc;
  GroupPtr g;
  int rc = lookup_group(group, g);
  if (rc == MPI_SUCCESS) rc = check_not_null(rank, "rank");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  int r = g->rank_of(state().world_rank);
  *rank = r < 0 ? MPI_UNDEFINED : r;
  return MPI_SUCCESS;
}

extern "C" int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_incl");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return subset("MPI_Group_incl", group, n, ranks, 1, newgroup, group_incl);
}

extern "C" int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_excl");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return subset("MPI_Group_excl", group, n, ranks, 1, newgroup, group_excl);
}

extern "C" int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                                    MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_range_incl");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return subset("MPI_Group_range_incl", group, n, n > 0 ? &ranges[0][0] : nullptr, 3, newgroup,
                group_range_incl);
}

extern "C" int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                                    MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_range_excl");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return subset("MPI_Group_range_excl", group, n, n > 0 ? &ranges[0][0] : nullptr, 3, newgroup,
                group_range_excl);
}

extern "C" int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_union");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return combine("MPI_Group_union", group1, group2, newgroup, group_union);
}

extern "C" int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_intersection");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return combine("MPI_Group_intersection", group1, group2, newgroup, group_intersection);
}

extern "C" int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_difference");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return combine("MPI_Group_difference", group1, group2, newgroup, group_difference);
}

extern "C" int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                         MPI_Group group2, int ranks2[]) {
  const ApiCall call("MPI_Group_translate_ranks");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_translate_ranks";
  if (int rc = check_running(kFn)) return rc;
  GroupPtr a, b;
  int rc = lookup_group(group1, a, "group1");
  if (rc == MPI_SUCCESS) rc = lookup_group(group2, b, "group2");
  if (rc == MPI_SUCCESS) rc = check_n(n, ranks1, "ranks1");
  if (rc == MPI_SUCCESS) rc = check_n(n, ranks2, "ranks2");
  if (rc == MPI_SUCCESS) {
    std::string error;
    if (!group_translate(*a, {ranks1, static_cast<std::size_t>(n)}, *b,
                         {ranks2, static_cast<std::size_t>(n)}, error)) {
      rc = fail(MPI_ERR_RANK, "{}", error);
    }
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const ApiCall call("MPI_Group_compare");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_compare";
  if (int rc = check_running(kFn)) return rc;
  GroupPtr a, b;
  int rc = lookup_group(group1, a, "group1");
  if (rc == MPI_SUCCESS) rc = lookup_group(group2, b, "group2");
  if (rc == MPI_SUCCESS) rc = check_not_null(result, "result");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *result = group_compare(*a, *b);
  return MPI_SUCCESS;
}

extern "C" int MPI_Group_free(MPI_Group* group) {
  const ApiCall call("MPI_Group_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_free";
  if (int rc = check_running(kFn)) return rc;
  GroupPtr g;
  int rc = check_not_null(group, "group");
  if (rc == MPI_SUCCESS) rc = lookup_group(*group, g);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // MPI_GROUP_EMPTY may be "freed" (it is what operations return for empty
  // results); predefined objects stay.
  state().groups.erase(*group);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
