#include "mpi/internal/connect.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lapi/link.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// A member's entry: what the other job's tasks need to reach it (lapi's join card) and to
// send to it (mpcpi's setup).
struct EntryHead {
  mpcpi::Engine::JoinSetup setup;
};

// A group's description, as the roots swap it: member count, the longest entry, each entry's
// length, then the entries, each padded to the longest.
struct GroupHead {
  std::uint64_t members = 0;
  std::uint64_t stride = 0;
};

struct RemoteGroup {
  std::vector<std::vector<std::byte>> cards;
  std::vector<mpcpi::Engine::JoinSetup> setups;
};

bool decode(const std::vector<char>& bytes, RemoteGroup& out) {
  GroupHead head;
  if (bytes.size() < sizeof head) return false;
  std::memcpy(&head, bytes.data(), sizeof head);
  if (head.members == 0 || head.members > 1u << 20 || head.stride < sizeof(EntryHead) ||
      bytes.size() != sizeof head + head.members * (sizeof(std::uint64_t) + head.stride)) {
    return false;
  }
  const char* lens = bytes.data() + sizeof head;
  const char* entries = lens + head.members * sizeof(std::uint64_t);
  for (std::uint64_t i = 0; i < head.members; ++i) {
    std::uint64_t len = 0;
    std::memcpy(&len, lens + i * sizeof len, sizeof len);
    if (len < sizeof(EntryHead) || len > head.stride) return false;
    const char* e = entries + i * head.stride;
    EntryHead eh;
    std::memcpy(&eh, e, sizeof eh);
    const auto* card = reinterpret_cast<const std::byte*>(e + sizeof eh);
    out.setups.push_back(eh.setup);
    out.cards.emplace_back(card, card + (len - sizeof eh));
  }
  return true;
}

// Every member's entry gathered, described for the other group (GroupHead layout).
int describe_group(const Comm& comm, std::vector<char>& out) {
  std::vector<std::byte> card;
  if (lapi::Status s = lapi_context().join_card(card); !s.ok()) {
    return fail(MPI_ERR_INTERN, "{}", s.message());
  }
  const EntryHead head{engine().join_setup()};
  std::vector<char> mine(sizeof head + card.size());
  std::memcpy(mine.data(), &head, sizeof head);
  std::memcpy(mine.data() + sizeof head, card.data(), card.size());
  const std::uint64_t len = mine.size();
  std::vector<char> lens;
  if (int rc = internal_allgather(comm, &len, sizeof len, lens)) return rc;
  std::uint64_t stride = 0;
  for (int r = 0; r < comm.size(); ++r) {
    std::uint64_t l = 0;
    std::memcpy(&l, lens.data() + r * sizeof l, sizeof l);
    stride = std::max(stride, l);
  }
  mine.resize(stride);
  std::vector<char> entries;
  if (int rc = internal_allgather(comm, mine.data(), stride, entries)) return rc;
  const GroupHead gh{static_cast<std::uint64_t>(comm.size()), stride};
  out.resize(sizeof gh);
  std::memcpy(out.data(), &gh, sizeof gh);
  out.insert(out.end(), lens.begin(), lens.end());
  out.insert(out.end(), entries.begin(), entries.end());
  return MPI_SUCCESS;
}

}  // namespace

JoinedTasks::~JoinedTasks() {
  // After MPI_Finalize began, lapi's term leaves them (the context may be gone already).
  if (state().phase == Phase::running) (void)lapi_context().leave_tasks(first, count);
}

int join_other_group(const Comm& comm, int root, lapi::Link* link, int root_rc, MPI_Comm* out,
                     int root_failed_class) {
  Bridge bridge;
  bridge.link = link;
  return join_other_group(comm, root, bridge, root_rc, out, root_failed_class);
}

int join_other_group(const Comm& comm, int root, const Bridge& bridge, int root_rc, MPI_Comm* out,
                     int root_failed_class) {
  *out = MPI_COMM_NULL;
  std::vector<char> ours, theirs;
  if (int rc = describe_group(comm, ours)) return rc;
  if (int rc = leaders_swap(comm, root, bridge, root_rc, ours, theirs, root_failed_class,
                            fmt::format("the root (rank {}) could not reach the other job", root))) {
    return rc;
  }
  RemoteGroup remote;
  if (!decode(theirs, remote)) return fail(MPI_ERR_INTERN, "malformed group description from the other job");

  // Join them, numbered from the next free id (another thread may be joining other tasks
  // at the same time).
  lapi::Context& ctx = lapi_context();
  lapi::TaskId base = 0;
  const auto n = static_cast<std::uint32_t>(remote.cards.size());
  int rc = MPI_SUCCESS;
  std::shared_ptr<JoinedTasks> joined;
  if (lapi::Status s = ctx.join_tasks(remote.cards, base); !s.ok()) {
    rc = fail(MPI_ERR_OTHER, "joining the other job's tasks: {}", s.message());
  } else {
    // Whatever was joined is left again unless a communicator keeps it.
    joined = std::make_shared<JoinedTasks>(base, n);
    if (int erc = engine_error(engine().join_peers(base, remote.setups))) rc = erc;
  }

  // Nobody sends before every member of both groups has joined and learnt how the other
  // side numbered it: the exchange goes through the roots. It also tells whether everyone
  // could, and each member's first id for the other group (member i of the other group
  // numbers us its `key` + our rank).
  CreateEntry flag{};
  flag.color = rc == MPI_SUCCESS ? 1 : 0;
  flag.key = static_cast<int>(base);
  BridgedEntries flags;
  const std::string my_detail(error_detail());
  if (int xrc = bridged_exchange(comm, root, bridge, flag, flags)) return rc != MPI_SUCCESS ? rc : xrc;
  const auto failed = [](const CreateEntry& f) { return f.color != 1; };
  if (rc != MPI_SUCCESS) {
    set_error_detail(my_detail);
    return rc;
  }
  if (std::any_of(flags.local.begin(), flags.local.end(), failed) ||
      std::any_of(flags.remote.begin(), flags.remote.end(), failed)) {
    return fail(MPI_ERR_OTHER, "a member of one of the two groups could not join the other's tasks");
  }
  if (flags.remote.size() != n) return fail(MPI_ERR_INTERN, "the other group changed size while joining");
  std::vector<lapi::TaskId> ids_there(n);
  for (std::uint32_t i = 0; i < n; ++i) ids_there[i] = static_cast<lapi::TaskId>(flags.remote[i].key + comm.rank);
  if (lapi::Status s = ctx.name_joined(base, ids_there); !s.ok()) return fail(MPI_ERR_INTERN, "{}", s.message());
  BridgedEntries e;
  int slot = -1;
  if (int arc = bridged_agree(comm, root, bridge, CreateEntry{}, e, slot)) return arc;
  std::vector<int> remote_members(n);
  for (std::uint32_t i = 0; i < n; ++i) remote_members[i] = static_cast<int>(base + i);
  if (int irc = register_inter(comm, comm.group->members(), std::move(remote_members), slot, out)) return irc;
  CommPtr made;
  if (int lrc = lookup_comm(*out, made)) return lrc;
  made->joined.push_back(std::move(joined));
  return MPI_SUCCESS;
}

int connect_to_parent() {
  const char* port = std::getenv("LAPIS_SPAWN_PORT");
  if (port == nullptr || *port == '\0') return MPI_SUCCESS;
  const std::string name = port;
  ::unsetenv("LAPIS_SPAWN_PORT");  // not for the jobs this one starts
  CommPtr world;
  if (int rc = lookup_comm(MPI_COMM_WORLD, world)) return rc;
  std::unique_ptr<lapi::Link> link;
  int root_rc = MPI_SUCCESS;
  if (world->rank == 0) {
    if (lapi::Status s = lapi_context().connect_link(name, link); !s.ok()) {
      root_rc = fail(MPI_ERR_SPAWN, "reaching the job that spawned this one: {}", s.message());
    }
  }
  MPI_Comm parent = MPI_COMM_NULL;
  if (int rc = join_other_group(*world, 0, link.get(), root_rc, &parent)) return rc;
  CommPtr made;
  if (int rc = lookup_comm(parent, made)) return rc;
  made->name = "MPI_COMM_PARENT";  // as the standard names it
  state().parent_comm = parent;
  return MPI_SUCCESS;
}

}  // namespace mpi
