// Group algebra alone.
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "mpi.h"
#include "mpi/internal/group.hpp"

using mpi::Group;

TEST_CASE("incl, excl and ranks") {
  Group world({0, 1, 2, 3, 4, 5});
  std::array<int, 3> pick{4, 0, 2};
  auto r = mpi::group_incl(world, pick);
  REQUIRE(r.group);
  CHECK(r.group->members() == std::vector<int>{4, 0, 2});
  CHECK(r.group->rank_of(2) == 2);
  CHECK(r.group->rank_of(1) == -1);
  auto x = mpi::group_excl(world, pick);
  REQUIRE(x.group);
  CHECK(x.group->members() == std::vector<int>{1, 3, 5});
}

TEST_CASE("bad rank lists are rejected with the argument named") {
  Group g({10, 11, 12});
  std::array<int, 2> out_of_range{0, 3};
  auto r = mpi::group_incl(g, out_of_range);
  CHECK_FALSE(r.group);
  CHECK(r.error_class == MPI_ERR_RANK);
  CHECK(r.error.find("ranks[1]=3") != std::string::npos);
  std::array<int, 2> twice{1, 1};
  auto d = mpi::group_excl(g, twice);
  CHECK_FALSE(d.group);
  CHECK(d.error.find("twice") != std::string::npos);
}

TEST_CASE("ranges") {
  Group g({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::array<int, 6> ranges{0, 6, 3, 9, 7, -1};
  auto r = mpi::group_range_incl(g, ranges);
  REQUIRE(r.group);
  CHECK(r.group->members() == std::vector<int>{0, 3, 6, 9, 8, 7});
  auto x = mpi::group_range_excl(g, ranges);
  REQUIRE(x.group);
  CHECK(x.group->members() == std::vector<int>{1, 2, 4, 5});
  std::array<int, 3> bad{5, 1, 1};
  CHECK(mpi::group_range_incl(g, bad).error_class == MPI_ERR_ARG);
  std::array<int, 3> zero{1, 5, 0};
  CHECK(mpi::group_range_incl(g, zero).error_class == MPI_ERR_ARG);
}

TEST_CASE("set operations keep MPI's order") {
  Group a({5, 1, 3});
  Group b({3, 7, 5, 9});
  CHECK(mpi::group_union(a, b)->members() == std::vector<int>{5, 1, 3, 7, 9});
  CHECK(mpi::group_intersection(a, b)->members() == std::vector<int>{5, 3});
  CHECK(mpi::group_difference(a, b)->members() == std::vector<int>{1});
  CHECK(mpi::group_difference(a, a)->size() == 0);
}

TEST_CASE("compare and translate") {
  Group a({1, 2, 3});
  Group same({1, 2, 3});
  Group perm({3, 1, 2});
  Group other({1, 2, 4});
  CHECK(mpi::group_compare(a, same) == MPI_IDENT);
  CHECK(mpi::group_compare(a, perm) == MPI_SIMILAR);
  CHECK(mpi::group_compare(a, other) == MPI_UNEQUAL);
  std::array<int, 4> in{0, 1, 2, MPI_PROC_NULL};
  std::array<int, 4> out{};
  std::string err;
  REQUIRE(mpi::group_translate(a, in, other, out, err));
  CHECK(out == std::array<int, 4>{0, 1, MPI_UNDEFINED, MPI_PROC_NULL});
  std::array<int, 1> bad{3};
  std::array<int, 1> bad_out{};
  CHECK_FALSE(mpi::group_translate(a, bad, other, bad_out, err));
  CHECK(err.find("ranks1[0]=3") != std::string::npos);
}
