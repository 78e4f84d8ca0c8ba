#include "mpi/internal/comm_factory.hpp"

#include <cstring>

#include "mpi.h"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int exchange_and_agree(const Comm& parent, int color, int key, std::vector<CreateEntry>& all,
                       int& slot) {
  State& s = state();
  CreateEntry mine{};
  s.slots.to_words(mine.free_slots);
  mine.color = color;
  mine.key = key;
  std::vector<char> bytes;
  if (int rc = internal_allgather(parent, &mine, sizeof mine, bytes)) return rc;
  all.resize(parent.size());
  std::memcpy(all.data(), bytes.data(), bytes.size());
  std::uint64_t common[ContextSlots::kWords];
  for (int w = 0; w < ContextSlots::kWords; ++w) {
    common[w] = ~std::uint64_t{0};
    for (const CreateEntry& e : all) common[w] &= e.free_slots[w];
  }
  slot = ContextSlots::lowest(common);
  if (slot < 0) {
    return fail(MPI_ERR_OTHER, "no context id is free at every member ({} communicators exist)",
                kContextSlots);
  }
  return MPI_SUCCESS;
}

int register_comm(const Comm& parent, std::vector<int> members, int slot, MPI_Comm* out) {
  State& s = state();
  auto group = std::make_shared<const Group>(std::move(members));
  int rank = group->rank_of(s.world_rank);
  CommPtr c(new Comm, [](Comm* p) {
    State& st = state();
    if (p->slot > kSelfSlot && st.phase == Phase::running) st.slots.release(p->slot);
    delete p;
  });
  c->group = std::move(group);
  c->rank = rank;
  c->slot = slot;
  c->errhandler = parent.errhandler;
  s.slots.take(slot);
  MPI_Comm h = s.comms.insert(c);
  if (h == MPI_COMM_NULL) return fail(MPI_ERR_INTERN, "too many communicators");
  c->handle = h;
  *out = h;
  return MPI_SUCCESS;
}

}  // namespace mpi
