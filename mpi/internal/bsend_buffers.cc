#include "mpi/internal/bsend_buffers.hpp"

#include <memory>

#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/large_count.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/session.hpp"

namespace mpi {
namespace {

using Key = mpcpi::Engine::BufferKey;

// Communicators' and sessions' keys: never reused, so a flush mark taken on
// a buffer since detached cannot name a later one.
Key g_next_key = 1;

Key key_of(BufferOwner owner) {
  return owner.key == nullptr ? mpcpi::Engine::kProcessBuffer : *owner.key;
}

// MPI_Buffer_iflush's request: done once every message in the buffer when
// it began has left (a buffer detached meanwhile has none left; mark 0,
// for a communicator or session without one, is done at once).
struct FlushState {
  Key key;
  std::uint64_t mark;
};

bool flushed(void* extra_state) {
  const auto* f = static_cast<const FlushState*>(extra_state);
  return engine().buffer_flushed(f->key, f->mark);
}

int free_flush_state(void* extra_state) {
  delete static_cast<FlushState*>(extra_state);
  return MPI_SUCCESS;
}

}  // namespace

mpcpi::Engine::BufferKey bsend_buffer_of(const Comm& c) {
  if (c.bsend_key != 0) return c.bsend_key;
  if (std::shared_ptr<Session> s = c.session.lock(); s && s->bsend_key != 0) return s->bsend_key;
  return mpcpi::Engine::kProcessBuffer;
}

int attach_buffer(BufferOwner owner, void* buffer, MPI_Count size) {
  const bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
  if (!automatic) {
    if (int rc = check_count(size, "size")) return rc;
    if (int rc = fits_int(size, "size", -1, "an attached buffer holds at most INT_MAX bytes"))
      return rc;
    if (size > 0 && buffer == nullptr)
      return fail(MPI_ERR_BUFFER, "buffer is NULL but size={} (MPI_BUFFER_AUTOMATIC asks for "
                  "automatic buffering)", size);
  }
  if (owner.key != nullptr && *owner.key != 0)
    return fail(MPI_ERR_BUFFER, "{} has a buffer attached already", owner.what);
  const Key key = owner.key == nullptr ? mpcpi::Engine::kProcessBuffer : g_next_key;
  if (int rc = engine_error(engine().buffer_attach(buffer, automatic ? 0 : size, key, automatic)))
    return rc;
  if (owner.key != nullptr) *owner.key = g_next_key++;
  return MPI_SUCCESS;
}

int detach_buffer(BufferOwner owner, void* buffer_addr, MPI_Count& size) {
  if (int rc = check_not_null(buffer_addr, "buffer_addr")) return rc;
  void* buf = nullptr;
  std::size_t bytes = 0;
  if (owner.key == nullptr || *owner.key != 0) {
    if (int rc = engine_error(engine().buffer_detach(buf, bytes, key_of(owner)))) return rc;
    if (owner.key != nullptr) *owner.key = 0;
  }
  *static_cast<void**>(buffer_addr) = buf;
  size = static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}

int flush_buffer(BufferOwner owner) {
  if (owner.key != nullptr && *owner.key == 0) return MPI_SUCCESS;
  return engine_error(engine().buffer_flush(key_of(owner)));
}

int iflush_buffer(BufferOwner owner, MPI_Request* request) {
  auto g = std::make_shared<GRequest>();
  g->ready = &flushed;
  g->free = &free_flush_state;
  const bool attached = owner.key == nullptr || *owner.key != 0;
  g->extra_state = new FlushState{key_of(owner), attached ? engine().buffer_flush_mark() : 0};
  const int rc = open_grequest(g, request);
  if (rc != MPI_SUCCESS) delete static_cast<FlushState*>(g->extra_state);  // free_fn never runs
  return rc;
}

}  // namespace mpi
