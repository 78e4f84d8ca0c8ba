#include "mpi/internal/coll/channel.hpp"

#include "mpi.h"
#include "mpi/internal/coll/fiber.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {

CollChannel::CollChannel(const Comm& comm, CollTag tag, std::uint32_t seq)
    : comm_(comm),
      engine_(engine()),
      context_(comm.context(ContextKind::collective)),
      tag_(coll_tag(tag, seq)),
      rank_(comm.rank),
      size_(comm.peer_size()),
      on_fiber_(Fiber::current() != nullptr) {
  if (!comm.coll_bound) bind_collective_context(comm);
}

void bind_collective_context(const Comm& comm) {
  std::vector<lapi::TaskId> members;
  for (const Group* g : {comm.group.get(), comm.remote_group.get()}) {
    if (g == nullptr) continue;
    for (int r = 0; r < g->size(); ++r) members.push_back(static_cast<lapi::TaskId>(g->world_of(r)));
  }
  engine().bind_context(comm.context(ContextKind::collective), members);
  comm.coll_bound = true;
}

CollChannel::~CollChannel() {
  // An algorithm that failed half-way still waits for what it posted: the
  // engine may write into buffers the caller is about to free.
  (void)wait_all();
}

int CollChannel::send(int peer, const void* data, std::size_t bytes) {
  if (on_fiber_) {
    int rc = isend(peer, data, bytes);
    int rc2 = wait_all();
    return rc != MPI_SUCCESS ? rc : rc2;
  }
  const Outgoing out = outgoing(data, bytes);
  const mpcpi::Engine::LibraryCall library;
  return engine_error(engine_.send(out.data, out.bytes, comm_.peer_world_of(peer), tag_, context_,
                                   mpcpi::SendMode::standard));
}

int CollChannel::recv(int peer, void* data, std::size_t bytes) {
  if (on_fiber_) {
    int rc = irecv(peer, data, bytes);
    int rc2 = wait_all();
    return rc != MPI_SUCCESS ? rc : rc2;
  }
  mpcpi::Status status;
  const mpcpi::Engine::LibraryCall library;
  const int rc = engine_error(engine_.recv(data, bytes, comm_.peer_world_of(peer), tag_, context_, &status));
  return absorb(rc, status, bytes);
}

int collective_size_mismatch(int peer, std::size_t got, std::size_t expected) {
  return fail(got > expected ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
              "collective size mismatch: rank {} sent {} bytes where this rank's count and "
              "datatype make {} (counts and datatypes must match across ranks; a rank that "
              "found a mismatch sends the others none of its data)",
              peer, got, expected);
}

int CollChannel::absorb(int rc, const mpcpi::Status& status, std::size_t expect) {
  if (!carry_on_) return rc;
  if (rc == MPI_SUCCESS && expect != kNotReceive && status.message_bytes < expect) {
    rc = collective_size_mismatch(comm_.peer_rank_of_world(status.source), status.message_bytes, expect);
  } else if (rc != MPI_ERR_TRUNCATE) {
    return rc;
  }
  if (truncated_ == MPI_SUCCESS) truncated_ = rc;
  return MPI_SUCCESS;
}

CollChannel::Outgoing CollChannel::outgoing(const void* data, std::size_t bytes) const {
  if (!carry_on_ || truncated_ == MPI_SUCCESS) [[likely]] return {data, bytes};
  static const char kPoison = 0;
  return bytes == 0 ? Outgoing{&kPoison, 1} : Outgoing{data, 0};
}

int CollChannel::sendrecv(int to, const void* sdata, std::size_t sbytes, int from, void* rdata,
                          std::size_t rbytes) {
  int rc = irecv(from, rdata, rbytes);
  if (rc == MPI_SUCCESS) rc = isend(to, sdata, sbytes);
  int rc2 = wait_all();
  return rc != MPI_SUCCESS ? rc : rc2;
}

int CollChannel::isend(int peer, const void* data, std::size_t bytes) {
  mpcpi::Request* req = nullptr;
  bool done = false;
  const Outgoing out = outgoing(data, bytes);
  const mpcpi::Engine::LibraryCall library;
  mpcpi::Errc e = engine_.isend(out.data, out.bytes, comm_.peer_world_of(peer), tag_, context_,
                                mpcpi::SendMode::standard, req, &done);
  if (e != mpcpi::Errc::success) return engine_error(e);
  if (!done) pending_.push_back({req, kNotReceive});
  return MPI_SUCCESS;
}

int CollChannel::irecv(int peer, void* data, std::size_t bytes) {
  mpcpi::Request* req = nullptr;
  const mpcpi::Engine::LibraryCall library;
  mpcpi::Errc e = engine_.irecv(data, bytes, comm_.peer_world_of(peer), tag_, context_, req);
  if (e != mpcpi::Errc::success) return engine_error(e);
  pending_.push_back({req, bytes});
  return MPI_SUCCESS;
}

int CollChannel::wait_all() {
  int first = MPI_SUCCESS;
  if (on_fiber_) {
    // Test what is pending; suspend until the next MPI call while anything
    // is left (the progress hook resumes this fiber).
    while (!pending_.empty()) {
      for (std::size_t i = 0; i < pending_.size();) {
        bool done = false;
        mpcpi::Status status;
        const mpcpi::Engine::LibraryCall library;  // not across the suspend below
        int rc = engine_error(engine_.test(pending_[i].request, done, &status));
        if (done) rc = absorb(rc, status, pending_[i].expect);
        if (!done) {
          ++i;
          continue;
        }
        if (first == MPI_SUCCESS) first = rc;
        pending_[i] = pending_.back();
        pending_.pop_back();
      }
      if (!pending_.empty()) Fiber::suspend();
    }
    return first;
  }
  const mpcpi::Engine::LibraryCall library;
  for (const Pending& p : pending_) {
    mpcpi::Status status;
    int rc = absorb(engine_error(engine_.wait(p.request, &status)), status, p.expect);
    if (first == MPI_SUCCESS) first = rc;
  }
  pending_.clear();
  return first;
}

}  // namespace mpi
