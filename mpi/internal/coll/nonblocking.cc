#include "mpi/internal/coll/nonblocking.hpp"

#include <new>
#include <utility>

#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/fiber.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// Collectives whose fiber has not finished, in the order they were started.
std::vector<std::shared_ptr<CollOp>> g_running;
bool g_in_hook = false;
int g_next_done_tag = 0;

// The zero-byte message to self that completes the op's request.
void signal_done(CollOp& op) {
  const Comm& c = *op.comm;
  mpcpi::Request* req = nullptr;
  bool done = false;
  const mpcpi::Engine::LibraryCall library;
  mpcpi::Errc e = engine().isend(nullptr, 0, c.world_of(c.rank), op.done_tag,
                                 c.context(ContextKind::reserved2), mpcpi::SendMode::standard,
                                 req, &done);
  if (e == mpcpi::Errc::success && !done) (void)engine().request_free(req);
}

// Runs the op's fiber until it waits or ends; true when it ended.
bool advance(CollOp& op) {
  if (!op.fiber->resume()) {
    op.rc = fail(MPI_ERR_NO_MEM, "no memory for a nonblocking collective's stack");
  } else if (!op.fiber->finished()) {
    return false;
  }
  op.fiber.reset();
  if (op.rc != MPI_SUCCESS) op.detail = std::string(error_detail());
  signal_done(op);
  return true;
}

// Posts the completion receive and starts the op's fiber.
int begin(Request& r) {
  CollOp& op = *r.coll;
  const Comm& c = *r.comm;
  op.done_tag = g_next_done_tag;
  g_next_done_tag = (g_next_done_tag + 1) & 0x3fffffff;
  op.rc = MPI_SUCCESS;
  op.detail.clear();
  // The fiber runs its steps only in MPI calls: the progress thread can
  // land data but not move the collective on, so no hand-over here.
  const mpcpi::Engine::LibraryCall library;
  mpcpi::Errc e = engine().irecv(nullptr, 0, c.world_of(c.rank), op.done_tag,
                                 c.context(ContextKind::reserved2), r.engine);
  if (e != mpcpi::Errc::success) return engine_error(e);
  CollOp* self = &op;
  op.fiber = std::make_unique<Fiber>([self] {
    try {
      self->rc = self->body(self->seq);
    } catch (const std::bad_alloc&) {
      self->rc = fail(MPI_ERR_NO_MEM, "out of memory in a nonblocking collective");
    }
  });
  r.active = true;
  g_running.push_back(r.coll);
  if (g_running.size() == 1) engine().set_progress_hook(&progress_collectives);
  // Run its first steps now (and let earlier ones move on too).
  progress_collectives();
  return MPI_SUCCESS;
}

}  // namespace

CollOp::~CollOp() = default;

std::vector<std::shared_ptr<const void>> keep_objects(MPI_Comm comm,
                                                      std::initializer_list<MPI_Datatype> types,
                                                      MPI_Op op) {
  std::vector<std::shared_ptr<const void>> keep;
  if (CommPtr* c = state().comms.find(comm)) keep.push_back(*c);
  for (MPI_Datatype t : types) {
    if (t == MPI_DATATYPE_NULL) continue;
    if (TypePtr* p = state().types.find(t)) keep.push_back(*p);
  }
  if (op != MPI_OP_NULL) {
    if (OpPtr* p = state().ops.find(op)) keep.push_back(*p);
  }
  return keep;
}

void keep_types(std::vector<std::shared_ptr<const void>>& keep, const MPI_Datatype* types, int n) {
  for (int i = 0; i < n; ++i) {
    if (TypePtr* p = state().types.find(types[i])) keep.push_back(*p);
  }
}

int launch_collective(Comm& comm, const char* fn, const CollCall& how,
                      std::vector<std::shared_ptr<const void>> keep, CollBody body,
                      const FiberOpExtras& extras) {
  if (int rc = check_request_ptr(how.request)) return raise(&comm, fn, rc);
  if (how.info != MPI_INFO_NULL && state().infos.find(how.info) == nullptr) {
    return raise(&comm, fn, fail(MPI_ERR_INFO, "info={:#x} is not an info object", how.info));
  }
  CommPtr* cp = state().comms.find(comm.handle);
  if (cp == nullptr) return raise(&comm, fn, fail(MPI_ERR_COMM, "communicator is gone"));
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) return raise(&comm, fn, fail(MPI_ERR_INTERN, "too many requests"));
  r->kind = RequestKind::coll;
  r->persistent = how.mode == CollMode::persistent;
  r->comm = {*cp, state().comms.is_predefined(comm.handle)};
  auto op = std::make_shared<CollOp>();
  op->body = std::move(body);
  op->keep = std::move(keep);
  op->comm = &comm;
  if (extras.takes_seq) op->seq = 1 + comm.coll_seq++ % (kCollSeqLimit - 1);  // 0: blocking
  op->status = extras.status;
  r->coll = std::move(op);
  if (how.mode == CollMode::nonblocking) {
    if (int rc = begin(*r)) {
      CommPtr keep_comm = r->comm.release();
      requests().release(h);
      return raise(keep_comm.get(), fn, rc);
    }
  }
  *how.request = h;
  return MPI_SUCCESS;
}

int start_collective(Request& r) { return begin(r); }

int collective_result(const CollOp& op, mpcpi::Errc err) {
  if (err != mpcpi::Errc::success) return engine_error(err);
  if (op.rc != MPI_SUCCESS) set_error_detail(op.detail);
  return op.rc;
}

void progress_collectives() {
  if (g_in_hook || Fiber::current() != nullptr) return;
  g_in_hook = true;
  // Index loop: a resumed collective may start another (a user op calling
  // MPI), which is appended.
  for (std::size_t i = 0; i < g_running.size();) {
    std::shared_ptr<CollOp> op = g_running[i];
    if (advance(*op)) {
      g_running.erase(g_running.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  if (g_running.empty()) engine().set_progress_hook(nullptr);
  g_in_hook = false;
}

void drain_collectives() {
  while (!g_running.empty()) {
    progress_collectives();
    (void)engine().progress();
  }
}

void drain_collectives_on(const Comm& comm) {
  auto pending = [&comm] {
    for (const auto& op : g_running) {
      if (op->comm == &comm) return true;
    }
    return false;
  };
  while (pending()) {
    progress_collectives();
    (void)engine().progress();
  }
}

}  // namespace mpi
