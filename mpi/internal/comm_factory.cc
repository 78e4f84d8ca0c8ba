#include "mpi/internal/comm_factory.hpp"

#include <cstring>
#include <utility>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

namespace {

// exchange_and_agree for a parent of one process (MPI_COMM_SELF): nobody
// to agree with, so it never waits for another agreement here either. It
// takes the lowest free slot that none offers, else one an agreement
// offered and still waits on (for other processes: its confirm_slot then
// finds it taken and goes round again). Waiting for those instead could
// wait forever: their processes may be waiting for this thread.
int take_alone(const Comm& parent, int color, int key, std::vector<CreateEntry>& all, int& slot) {
  CreateEntry mine{};
  mine.color = color;
  mine.key = key;
  all.assign(1, mine);
  slot = state().slots.free_for_one();
  if (slot < 0) {
    return fail(MPI_ERR_OTHER, "no context id is free ({} communicators exist)", kContextSlots);
  }
  bool everyone = false;
  return confirm_slot(parent, slot, everyone);
}

}  // namespace

int exchange_and_agree(const Comm& parent, int color, int key, std::vector<CreateEntry>& all,
                       int& slot) {
  State& s = state();
  if (parent.size() == 1) return take_alone(parent, color, key, all, slot);
  // Two guards against agreements running here at once. Threads
  // (MPI_THREAD_MULTIPLE): an offer is reserved while it is out, and only
  // the agreement with the lowest parent slot offers (the others offer none
  // and go round again). Fibers (MPI_Comm_idup): the slot agreed on is
  // confirmed by every member taking it, or the round repeats.
  s.slots.begin_agreement(parent.slot);
  struct End {
    ContextSlots& slots;
    int parent_slot;
    ~End() { slots.end_agreement(parent_slot); }
  } end{s.slots, parent.slot};
  for (;;) {
    CreateEntry mine{};
    mine.retry = s.slots.offer(parent.slot, mine.free_slots) ? 0 : 1;
    mine.color = color;
    mine.key = key;
    std::vector<char> bytes;
    const int rc = internal_allgather(parent, &mine, sizeof mine, bytes);
    s.slots.withdraw(mine.free_slots);
    if (rc != MPI_SUCCESS) return rc;
    all.resize(parent.size());
    std::memcpy(all.data(), bytes.data(), bytes.size());
    std::uint64_t common[ContextSlots::kWords];
    bool retry = false;
    for (int w = 0; w < ContextSlots::kWords; ++w) {
      common[w] = ~std::uint64_t{0};
      for (const CreateEntry& e : all) common[w] &= e.free_slots[w];
    }
    for (const CreateEntry& e : all) retry |= e.retry != 0;
    slot = ContextSlots::lowest(common);
    if (slot < 0) {
      if (retry) {
        // Another agreement here leads (MPI_THREAD_MULTIPLE): let its
        // thread have the MPI lock, or it never finishes (a dup of
        // MPI_COMM_SELF, whose allgather never waits, spun holding it).
        ApiCall::release_for_idle();
        continue;
      }
      return fail(MPI_ERR_OTHER, "no context id is free at every member ({} communicators exist)",
                  kContextSlots);
    }
    bool everyone = false;
    if (int rc2 = confirm_slot(parent, slot, everyone)) return rc2;
    if (everyone) return MPI_SUCCESS;
  }
}

int confirm_slot(const Comm& comm, int slot, bool& everyone) {
  State& s = state();
  // Taken at once, so that nothing else here (a nonblocking collective's
  // fiber run while this waits) can take it meanwhile.
  const int took = s.slots.is_free(slot) ? 1 : 0;
  if (took) s.slots.take(slot);
  std::vector<char> flags;
  int rc = internal_allgather(comm, &took, sizeof took, flags);
  everyone = rc == MPI_SUCCESS;
  for (int r = 0; everyone && r < comm.size(); ++r) {
    int f;
    std::memcpy(&f, flags.data() + r * sizeof f, sizeof f);
    everyone = f == 1;
  }
  if (took && !everyone) s.slots.release(slot);
  return rc;
}

void init_group_members(Comm& members, GroupPtr g, int me, int slot, int tag) {
  members.group = std::move(g);
  members.rank = me;
  members.slot = slot;
  members.owns_slot = false;
  members.create_group_tag = tag;
}

CommPtr new_comm_object() {
  return CommPtr(new Comm, [](Comm* p) {
    State& st = state();
    if (p->owns_slot && p->slot > kSelfSlot && st.phase == Phase::running) {
      // Forget its binding, failures and revocation: the slot will be reused.
      std::uint32_t contexts[kContextsPerSlot];
      for (std::uint32_t k = 0; k < kContextsPerSlot; ++k) contexts[k] = p->context(static_cast<ContextKind>(k));
      engine().unbind_contexts(contexts);
      st.slots.release(p->slot);
    }
    delete p;
  });
}

int install_comm(const CommPtr& c, int slot, MPI_Comm* out) {
  State& s = state();
  s.slots.take(slot);
  MPI_Comm h = s.comms.insert(c);
  if (h == MPI_COMM_NULL) return fail(MPI_ERR_INTERN, "too many communicators");
  c->handle = h;
  *out = h;
  return MPI_SUCCESS;
}

int register_comm(const Comm& parent, std::vector<int> members, int slot, MPI_Comm* out) {
  State& s = state();
  auto group = std::make_shared<const Group>(std::move(members));
  int rank = group->rank_of(s.world_rank);
  CommPtr c = new_comm_object();
  c->group = std::move(group);
  c->rank = rank;
  c->slot = slot;
  c->errhandler = parent.errhandler;
  c->joined = parent.joined;
  c->session = parent.session;
  return install_comm(c, slot, out);
}

}  // namespace mpi
