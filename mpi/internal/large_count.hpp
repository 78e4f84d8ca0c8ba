#pragma once
// What the MPI-4.0 large-count ("_c") forms share (api/large_count*.cc).
// Each _c function is the int form's call with its counts narrowed:
//  - a count of at most INT_MAX is passed on as it is;
//  - one larger count of one buffer becomes one instance of a "run" type,
//    a committed contiguous type of that many (Narrowed), which the int
//    form moves like any derived type. Pending operations (requests,
//    nonblocking and persistent collectives, RMA) keep their own reference
//    to it, so it is freed when the _c call returns;
//  - what cannot be narrowed that way (count and displacement arrays of the
//    v and w forms, type constructor arguments, disp_unit) must fit the int
//    form, else the call fails with the argument and index named (fits_int,
//    IntArray). Nothing is truncated.
// Every helper returns MPI_SUCCESS or an error class with its detail
// recorded (fail()); the caller raises it under its own name.

#include <climits>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/datatype.hpp"

namespace mpi {

// A count of at most INT_MAX as the int forms take it; a negative one goes
// on as -1 so that the int form refuses it with its own message.
inline int small_count(MPI_Count count) { return count < 0 ? -1 : static_cast<int>(count); }

// `count` instances of `old` (handle `old_handle`) as one committed type in
// the handle table: the core's contiguous type, whose outermost repetition
// is a loop of `count` turns however `old` is laid out. Its envelope is
// MPI_Type_contiguous_c's (MPI_COMBINER_CONTIGUOUS, the count a large count).
int run_of(MPI_Count count, const TypePtr& old, MPI_Datatype old_handle, const char* count_arg,
           MPI_Datatype& out);

// A count and type the int forms take: the caller's, or a run type freed
// when this goes out of scope.
class Narrowed {
 public:
  Narrowed() = default;
  Narrowed(const Narrowed&) = delete;
  Narrowed& operator=(const Narrowed&) = delete;
  ~Narrowed();

  int set(MPI_Count count, MPI_Datatype type, const char* count_arg, const char* type_arg);
  // A reduction's count: a run type only with a predefined op (a user
  // function would be handed the run type instead of the caller's type);
  // with a user op a count beyond INT_MAX is MPI_ERR_COUNT.
  int set_reduction(MPI_Count count, MPI_Datatype type, MPI_Op op, const char* count_arg);

  // A side the int form does not look at (MPI_IN_PLACE, a non-root's
  // receive side): passed on as given, a count beyond INT_MAX as 0.
  void ignore(MPI_Count count, MPI_Datatype type) {
    type_ = type;
    count_ = count > INT_MAX ? 0 : small_count(count);
  }

  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Datatype owned_ = MPI_DATATYPE_NULL;
};

// MPI_ERR_COUNT unless INT_MIN <= value <= INT_MAX ("{arg}={value} exceeds
// INT_MAX: {why}"); `index` >= 0 names an array element.
int fits_int(std::int64_t value, const char* arg, std::int64_t index, const char* why,
             int error_class = MPI_ERR_COUNT);

// An array of MPI_Count or MPI_Aint as the int form's int array: null
// stays null (the int form says whether that is allowed), `n` < 0 or an
// unknown length passes null too.
// A nonblocking or persistent int form reads the arrays after it returns
// (at each MPI_Start): keep_with_request hands them to its request.
class IntArray {
 public:
  int set(const std::int64_t* values, std::int64_t n, const char* arg, const char* why);
  const int* data() const { return ints_ ? ints_->data() : nullptr; }
  std::shared_ptr<const void> storage() const { return ints_; }

 private:
  std::shared_ptr<std::vector<int>> ints_;
};

// After a nonblocking or persistent collective's int form made `request`:
// the collective keeps `storage` alive with the other objects it refers to
// (coll/nonblocking.hpp: CollOp::keep), until the request is freed.
void keep_with_request(MPI_Request request,
                       std::initializer_list<std::shared_ptr<const void>> storage);

// Why the array forms take only what fits.
inline constexpr const char* kVFormWhy =
    "the v and w forms take larger counts and displacements only when they fit an int (not yet)";

// Bytes `offset` after `base` (null and MPI_IN_PLACE stay as they are).
template <typename P>
P* at(P* base, MPI_Aint offset) {
  if (base == nullptr || base == MPI_IN_PLACE) return base;
  return reinterpret_cast<P*>(reinterpret_cast<std::uintptr_t>(base) + offset);
}

// `count` elements of `type` in pieces the int forms take (2^30 elements
// each); run(offset in bytes, elements) does one piece. For reductions,
// which apply elementwise; blocking forms only.
inline constexpr MPI_Count kPiece = MPI_Count{1} << 30;
template <typename Run>
int in_pieces(MPI_Count count, MPI_Datatype type, Run run) {
  if (count <= INT_MAX) return run(0, small_count(count));
  MPI_Aint lb = 0, extent = 0;
  if (int rc = MPI_Type_get_extent(type, &lb, &extent)) return rc;
  for (MPI_Count done = 0; done < count; done += kPiece) {
    const MPI_Count n = count - done < kPiece ? count - done : kPiece;
    if (int rc = run(static_cast<MPI_Aint>(done * extent), static_cast<int>(n))) return rc;
  }
  return MPI_SUCCESS;
}

// A narrowing failure raised on `comm` under `fn` (an unknown handle, or
// MPI_COMM_NULL, raises on no communicator).
int raise_on(MPI_Comm comm, const char* fn, int rc);
// The same on a window.
int raise_on_win(MPI_Win win, const char* fn, int rc);

// The number of blocks the v and w forms' arrays hold on `comm` at this
// rank: what the int form reads (group size, the remote group's for an
// inter-communicator, neighbourhood degrees). -1 when the communicator is
// unknown or has no such topology: the arrays pass as null and the int
// form reports the real problem.
// group: the peers (remote group of an inter-communicator); local: the
// local group (Reduce_scatter's recvcounts).
enum class Blocks { group, local, neighbor_in, neighbor_out };
std::int64_t blocks_of(MPI_Comm comm, Blocks which);
// Whether this rank is `root` of a rooted collective on `comm` (MPI_ROOT
// on an inter-communicator); false for an unknown communicator.
bool is_root(MPI_Comm comm, int root);

}  // namespace mpi
