#pragma once
// How the collectives talk: mpcpi point-to-point on the communicator's
// collective context, addressed by communicator rank, moving packed bytes.
// A tag holds the collective's kind and sequence number on the communicator
// (below kInternalTagBase, which internal_coll.hpp keeps), so collectives
// outstanding together never take each other's messages; within one
// collective, and between blocking ones (all number 0), messages of one
// sender match in send order.
//
// On a fiber (a nonblocking collective, nonblocking.hpp) every wait
// suspends the fiber until what it waits for has completed; on the caller's
// own stack it blocks in the engine.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpcpi/mpcpi.hpp"
#include "mpi/internal/comm.hpp"

namespace mpi {

// One tag per collective (readable in traces); every algorithm's messages
// between two ranks are sent and received in the same order.
enum class CollTag : int {
  barrier = 0,
  bcast = 1,
  reduce,
  allreduce,
  gather,
  scatter,
  allgather,
  alltoall,
  scan,
  exscan,
  neighbor,  // every neighbourhood collective (topology.hpp)
};
inline constexpr int kCollTagKinds = 16;
// Sequence numbers are below this: tags stay below kInternalTagBase.
inline constexpr std::uint32_t kCollSeqLimit = 1u << 26;

// The tag of collective number `seq` of `kind` on a communicator (0 for
// every blocking collective, nonblocking.hpp).
inline int coll_tag(CollTag kind, std::uint32_t seq) {
  return static_cast<int>((seq % kCollSeqLimit) * kCollTagKinds) + static_cast<int>(kind);
}

// Binds the communicator's collective context to its members (both groups
// of an inter-communicator) in mpcpi, so that a member's failure fails the
// context's traffic at every rank (mpcpi::Engine::bind_context). Once per
// communicator, at its first collective; the slot's release unbinds it.
void bind_collective_context(const Comm& comm);

class CollChannel {
 public:
  CollChannel(const Comm& comm, CollTag tag, std::uint32_t seq);
  ~CollChannel();
  CollChannel(const CollChannel&) = delete;
  CollChannel& operator=(const CollChannel&) = delete;

  // On an inter-communicator peers are ranks of the remote group: size()
  // is the remote group's size and rank() this process's local rank.
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Each returns an MPI error class (detail recorded) or MPI_SUCCESS.
  int send(int peer, const void* data, std::size_t bytes);
  int recv(int peer, void* data, std::size_t bytes);
  // Both at once (neither side waits for the other to receive first).
  int sendrecv(int to, const void* sdata, std::size_t sbytes, int from, void* rdata,
               std::size_t rbytes);
  // Posts without waiting; wait_all() completes everything posted.
  int isend(int peer, const void* data, std::size_t bytes);
  int irecv(int peer, void* data, std::size_t bytes);
  int wait_all();

  // Runs `algorithm` (returning an MPI class) so that a receive that
  // truncates (the ranks' counts differ: an erroneous program) does not
  // stop it: other ranks wait for its later steps (a tree's forwarding, a
  // ring's next block), and leaving them hung them. Meanwhile recv,
  // sendrecv and wait_all report a truncation as success, keeping what
  // landed; the result is the algorithm's, or else the truncation. The
  // algorithms run this way size every receive exactly, so a message
  // shorter than its receive is a mismatch too (MPI_ERR_OTHER, naming both
  // sizes), which a point-to-point receive would accept silently. Once
  // this rank found a mismatch, its later sends carry none of its data but
  // a size no receiver expects (poisoned): the ranks after it (a tree's
  // subtree, a ring's next) report the mismatch too, instead of succeeding
  // with what it forwarded.
  // A mismatch this rank found on its own before the algorithm (its send
  // is not the size of its block): reported like a received one, and its
  // sends are poisoned from the start, so the ranks that would take its
  // data for the right size see the mismatch too.
  void found_mismatch(int rc) {
    if (truncated_ == MPI_SUCCESS) truncated_ = rc;
  }

  template <class Algorithm>
  int carrying_on(Algorithm&& algorithm) {
    carry_on_ = true;
    const int rc = algorithm();
    carry_on_ = false;
    return rc != MPI_SUCCESS ? rc : truncated_;
  }

 private:
  // A receive's outcome under carrying_on (expect: its size; a send's is
  // kNotReceive).
  static constexpr std::size_t kNotReceive = SIZE_MAX;
  int absorb(int rc, const mpcpi::Status& status, std::size_t expect);
  // What a send of `bytes` at `data` puts on the wire (poisoned, above).
  struct Outgoing {
    const void* data;
    std::size_t bytes;
  };
  Outgoing outgoing(const void* data, std::size_t bytes) const;
  const Comm& comm_;
  mpcpi::Engine& engine_;
  std::uint32_t context_;
  int tag_;
  int rank_;
  int size_;
  struct Pending {
    mpcpi::Request* request;
    std::size_t expect;  // a receive's size, or kNotReceive
  };
  std::vector<Pending> pending_;
  bool on_fiber_;
  bool carry_on_ = false;
  int truncated_ = MPI_SUCCESS;  // the first mismatch carrying_on absorbed
};

// A collective's data from `peer` that does not have the size this rank's
// count and datatype make (an erroneous program): MPI_ERR_TRUNCATE when it
// is larger, MPI_ERR_OTHER when smaller, with both sizes in the message.
int collective_size_mismatch(int peer, std::size_t got, std::size_t expected);

}  // namespace mpi
