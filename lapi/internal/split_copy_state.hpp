#pragma once
// Split copy's records and counts (split_copy.cc): the Amsends this task
// sends by split copy until the target's split_done, and those it receives
// until every part is in. Records travel as SlotTable cookies, so a forged
// or stale message is refused rather than followed. Everything here is
// guarded by the engine's lock_ (UCX callbacks and the sending thread);
// `probe` is read by peers, once, at init. The per-peer parts (pid, free
// claim cells) live in Peer (peer.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/internal/completion.hpp"
#include "lapi/internal/slot_table.hpp"
#include "lapi/internal/stage_copy_choice.hpp"
#include "lapi/internal/wire.hpp"
#include "lapi/status.hpp"

namespace lapi::internal {

struct SplitSend {  // origin side, until split_done
  TaskId tgt;
  Counter* origin;
  // The origin buffer, and the Amsend's data: must outlive a queued send.
  SplitWire wire;
  bool striped = false;  // over the links (stripes.cc), not by cross-memory attach
  // Through the target's staging area (staged_copy.cc): how much is pushed,
  // and whether its first chunks are short (the area was empty).
  bool staged = false;
  bool short_start = false;
  std::uint64_t pushed = 0;
};

struct SplitRecv {  // target side, until every part is in
  TaskId src;
  CompletionJob job;
  std::uint64_t id;     // origin's record
  std::uint32_t cell;   // claim cell, or kNoCell
  std::uint32_t parts;
  Errc error;
  std::string detail;
  // LAPIS_CHECKSUM: the origin's buffer and the data's CRC32C.
  void* buffer = nullptr;
  std::uint64_t addr = 0;
  std::uint64_t len = 0;
  std::uint32_t crc = 0;
  // Staged (staged_copy.cc): the data comes through the staging area;
  // `landed` bytes of it so far.
  bool staged = false;
  std::uint64_t landed = 0;
  bool pulled = false;  // the target read some of it itself (pull_staged_if_quiet_locked)

  static constexpr std::uint32_t kNoCell = UINT32_MAX;
};

// The last 64 record ids something happened to.
struct RecentIds {
  std::array<std::uint64_t, 64> ids{};
  std::size_t next = 0;
  void note(std::uint64_t id) { ids[next++ % ids.size()] = id; }
  bool has(std::uint64_t id) const {
    return id != 0 && std::find(ids.begin(), ids.end(), id) != ids.end();
  }
};

struct SplitCopyState {
  const std::uint64_t probe = kSplitProbe;  // peers read it at init (split_address)
  SlotTable<SplitSend*> sends;
  SlotTable<SplitRecv*> recvs;
  // For shm_stats().
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t parts_helped = 0;
  // What a 16 KiB cross-memory read cost against a copy at init (0: not
  // measured), for LAPIS_VERBOSE.
  double cma_copy_ratio = 0;
  // LAPIS_CHECKSUM: split Amsends whose parts are all in, their check still
  // to run (split_copy.cc, check_held_splits_locked), in arrival order;
  // `held_this_poll`: one was added during the current poll.
  std::vector<std::unique_ptr<SplitRecv>> held_checks;
  bool held_this_poll = false;
  // The ring poll stops after the frame just taken (progress.cc): a
  // target's copy ran (UCX goes first), or a control message came (handled
  // before the next frame: it may free the buffer of an MPI_Send whose
  // reply is that next frame, which would otherwise find its receive not
  // posted yet).
  bool end_poll = false;
  // split_go / split_done taken from the rings, in arrival order, handled
  // once the poll that found them has released their slots (a split_go's
  // copy asks whether frames wait there).
  std::vector<std::variant<SplitGoWire, SplitDoneWire>> ring_controls;
  // Staged Amsends (staged_copy.cc). Origin: per target, in the order their
  // frames left, until every chunk is pushed. Target: per source, a StageIn.
  std::vector<std::deque<SplitSend*>> stage_out;
  std::size_t stage_out_count = 0;
  StageCopyChoice stage_copy;  // how the origin copies a chunk in
  std::uint64_t staged_streamed = 0;  // chunks it copied in by streaming stores
  struct StageIn {
    std::deque<std::uint64_t> open;   // records that still take chunks, in the order they opened
    std::uint64_t quiet_since_ns = 0;  // since when no chunk came (0: one did last poll)
    std::uint64_t origin_polls = 0;    // the source's InboxHeader::polls then
    // The source's records (its ids) whose chunks are dropped: Amsends
    // refused here, or pulled (pull_staged_if_quiet_locked) while it pushed.
    RecentIds dropped;
    // Its records whose frame arrived damaged and comes again
    // (LAPIS_CHECKSUM): their chunks wait for it.
    RecentIds resent;
  };
  std::vector<StageIn> stage_in;
  std::size_t stage_in_count = 0;  // open records over all sources
  std::uint64_t staged_sent = 0;
  std::uint64_t staged_received = 0;
  std::uint64_t staged_pulled = 0;
  std::uint64_t staged_pulls_cut = 0;  // stopped when the origin polled again
  // The last split Amsends whose split_done came. A split_go and split_done
  // may take different ways (ring and UCX, when the ring was full), so a
  // split_go may come after its split_done: it is then dropped, where one
  // naming a record never sent is refused.
  RecentIds recently_done;

  // The record of split Amsend `id` to `tgt`, taken out of the table;
  // null (the table unchanged) when `id` names no such Amsend.
  std::unique_ptr<SplitSend> take_send(std::uint64_t id, TaskId tgt) {
    SplitSend** found = sends.find(id);
    if (found == nullptr || (*found)->tgt != tgt) return nullptr;
    return std::unique_ptr<SplitSend>(*sends.take(id));
  }
};

}  // namespace lapi::internal
