// Staged copy: a large Amsend with an origin counter to a task on this node
// goes through a staging area in the target's inbox (shm_channel.hpp): the
// origin copies it in 64 KiB chunks, the target copies each out as it
// comes, on another core, so the two copies overlap.
//
// Where: what split copy would take, and from split copy's 16 KiB minimum
// below its threshold, where the other way is UCX's eager copies.
// Measured on an AMD Zen 5 VM (2 cores), LAPIS_STAGED_COPY=0 against 1
// alternated in one build, medians of 4-5 rounds:
// - without checksums, where split copy starts at the MPI layer's 128 KiB
//   eager limit (cross-memory reads cost ~15 copies there): mpi_bw 64 KiB
//   26.9 -> 37.4 GB/s, 128 KiB 21.0 -> 40.5, 1 MiB 23.6 -> 42.5, 4 MiB
//   21.2 -> 34.3; mpi_latency 96 KiB 6.6 -> 5.5 us, 256 KiB 14.3 -> 10.1,
//   1 MiB 89 -> 31, 4 MiB 481 -> 115, but 128 KiB 7.0 -> 8.4 (split copy's
//   two cores copy half each; two chunks barely overlap). Keeping 128 KiB
//   on split copy was tried (2026-12-02, builds alternated, 3-4 rounds): in
//   one machine state split led there, 9.6-10.2 us against 11.7-12.1 (but
//   18 GB/s against 23), in another staging led by far, 6.6-6.9 us against
//   11.8-14.3, so staging keeps it;
// - below 64 KiB staging lost latency to UCX (16-48 KiB +0.6-1.4 us) while
//   the first chunk waited for the target's split_go. Since the chunks
//   follow the frame it wins there too: from 16 KiB rather than 64, a
//   2-core AMD EPYC VM where split copy starts at 128 KiB (a read costs
//   17.5 copies), 4 rounds alternated: mpi_latency 16 / 32 / 48 / 56 KiB
//   3.44 / 4.79 / 6.34 / 6.81 -> 2.76 / 3.54 / 4.52 / 4.70 us, mpi_bw
//   16 / 32 / 48 KiB 9.9 / 12.8 / 13.6 -> 12.2 / 17.5 / 21.4 GB/s,
//   mpi_bibw 12.6 / 13.2 / 13.8 -> 14.7 / 18.2 / 21.5; 64 KiB unchanged.
//   Chunks of 16 or 32 KiB were slower than 64 KiB at every size from
//   64 KiB up; all 16 KiB (or 8 KiB) after a short start, rather than 16,
//   16, 32, 64 (below), cost mpi_latency 64 / 80 KiB 10-20%.
// Where a cross-memory read is cheap (split copy from 16 KiB: the start-up
// ratio at most 8 copies), split copy takes 96 KiB and up instead
// (kSplitOverStageMin): staging is two copies on two cores, split copy one
// copy shared by them, and here a read is no dearer than a copy in
// throughput. On a 2-core AMD EPYC VM (ratio 6-7), 2026-12-03, builds
// alternated 3 times: mpi_bw 128 KiB 12.8 -> 19.9 GB/s, 1 MiB 15.5 ->
// 21.3, mpi_bibw 128 KiB 13.2 -> 20.4, 1 MiB 15.2 -> 24.8, mpi_latency
// 128 KiB 13.8 -> 7.2 us, 1 MiB 65.8 -> 50.8, 4 MiB 299 -> 239; from 96
// KiB rather than 128 (4 rounds): mpi_latency 96 / 112 KiB 13.5 / 15.1 ->
// 8.6 / 8.4 us, mpi_bw 9.3 / 8.9 -> 11.2 / 13.0 GB/s. At 64 KiB
// staging still led mpi_bw (13.0 against 10.1 GB/s with
// LAPIS_STAGED_COPY=0; latency even, mpi_bibw 14.2 against 19.0), so
// there split copy takes over only while large Amsends go both ways
// (both_ways_locked): mpi_bibw 64 / 96 KiB 11.1 / 11.2 -> 16.2 / 16.2
// GB/s, 4 rounds alternated, mpi_bw unchanged; and so from 16 KiB: 32 / 48
// KiB 9.5 / 9.9 -> 11.9 / 13.2, 16 KiB 7.2 -> 7.7.
// With checksums staging takes every size: its CRCs ride on its copies.
//
// With LAPIS_CHECKSUM=crc32c the checksums ride on the copies. Split copy
// moves the data in the kernel (process_vm_readv/writev), so its CRC32C
// needs two passes of its own, the origin's over its buffer before the
// frame leaves and the target's over what landed: 1 MiB Amsends
// ran at 0.59x of unchecked (lapi_bandwidth --checksum none,crc32c). Through
// staging, the origin copies each 64 KiB chunk in by streaming stores with
// the CRC folded in (copy_chunk_in), and the target copies it out with
// crc32c_copy, whose CRC costs nothing beside the copy. A prototype of the
// two copies, two processes streaming 1 MiB messages on an AMD Zen 5 VM:
// 17-20 GB/s with both CRCs, against 19-23.5 for unchecked split copy. (A
// CRC fused into the origin's copy with cached vector stores ran at 6-9
// GB/s: those stores into lines the target just read stall where the CPU's
// string copy and streaming stores do not.)
//
//   origin                                   target
//   Amsend frame: kSplitData | kStagedData -> header handler names the buffer
//   chunks at once, each with the frame's    (chunks wait in the area until
//   record and its CRC32C                ->   then), each copied out, checked
//                                         <-  split_done after the last one
//   origin counter: buffer free again
//
// The chunks do not wait for the target to answer the frame (as split
// copy's parts wait for its split_go): that round trip cost 16-64 KiB
// messages 0.6-1.4 us of latency. The area is filled in frame order, so
// the head chunk belongs to the oldest record still open from its origin,
// or to a frame not taken yet (it waits). Chunks of an Amsend the target
// refused, or pulled itself, are dropped (StageIn::dropped); one that
// belongs to nothing else, or is out of place, is refused and the Amsend
// it claims fails. A damaged chunk is read again from the origin's buffer,
// which stays put until split_done, by cross-memory read (as split copy
// repairs).
//
// Only an Amsend with an origin counter is staged: its caller comes back to
// the library to wait for it, and those polls push the chunks (what the
// ring backlog relies on too). An origin that stays away instead (it went
// off to compute) pushes nothing: after kStagePullAfterNs with neither a
// chunk nor a poll of the origin's, the target reads the rest itself by
// cross-memory read, as split copy's target does, until the origin comes
// back (unchecked Amsends only, see pull_staged_if_quiet_locked).
// One without an origin counter, or whose frame finds the ring full or the
// target asleep, takes split copy or UCX. A target asleep is woken after a
// chunk is published; an origin that found every slot taken and went to
// sleep, after a slot is freed (ShmChannel::stage_release).

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"
#include "lapi/line_copy.hpp"

namespace lapi {

using namespace internal;

namespace {

constexpr std::size_t kChunk = ShmChannel::kStageChunk;

// Chunks this long and longer are copied in the way StageCopyChoice picks, and timed (as if
// full): a 16-48 KiB Amsend below split copy's threshold is one such short chunk, and it
// crawled like the full ones (mpi_bw 16 KiB 1.5-1.7 GB/s in the runs where 64 KiB did).
constexpr std::uint32_t kTimedChunk = 16 * 1024;

std::uint64_t per_full_chunk(std::uint64_t ns, std::uint32_t len) { return ns * kChunk / len; }

// The next chunk of `op`. A message that finds the staging area empty (the
// target idle, as in a ping-pong) starts with shorter chunks, each as long
// as all before it (16, 16, 32 KiB, then 64): the target starts its copy
// out after 16 KiB are in, not 64, so the two copies overlap in the first
// 64 KiB too (mpi_latency 64 KiB 4.5-5.3 -> 3.4-3.6 us where copies are
// fast). Behind other chunks the target has work meanwhile, and full
// chunks cost less per byte (mpi_bw 64 KiB 12.7 -> 10.9 GB/s when every
// message started short).
constexpr std::uint64_t kFirstChunk = 16 * 1024;

std::uint32_t next_chunk_len(const SplitSend& op) {
  const std::uint64_t left = op.wire.len - op.pushed;
  const std::uint64_t most = op.short_start ? std::max(kFirstChunk, op.pushed) : kChunk;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>({kChunk, left, most}));
}

// An origin that pushes fills a chunk every few microseconds (64 KiB at
// 20 GB/s: 3 us); one quiet this long has left the library.
constexpr std::uint64_t kStagePullAfterNs = 100'000;
// A pull's piece (pull_staged_if_quiet_locked): a multiple of kChunk, so that a
// pull stops where a chunk starts (from kChunk on, chunks start at its multiples).
constexpr std::uint64_t kPullPiece = 4 * kChunk;

std::uint64_t monotonic_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Origin: one chunk into its slot to `tgt`, and its CRC32C into *crc unless
// null; whether by streaming stores. With a CRC the chunk always streams,
// the CRC folded into the copy: the cached way takes the CRC in a second
// pass over the source after the copy (a fused copy's vector stores stall
// on the lines the target read a lap ago; the CPU's string copy does not).
// mpi_bw with LAPIS_CHECKSUM=crc32c, always streaming against the choice
// below (timing the target's checked copies out too), 4 rounds alternated:
// 64 KiB 18.5-19.4 / 12.8-18.7 GB/s, 1 MiB 21.1-22.9 / 19.4-21.7, 4 MiB
// 23.3-24.2 / 21.2-22.7; in a slower machine state even (64 KiB 13.5-14.4
// / 14.2-15.2, 1 MiB 17.4-19.0 / 17.4-18.1); mpi_bibw even. Without a CRC
// the way that is cheaper now (stage_copy_choice.hpp).
bool copy_chunk_in(SplitCopyState& split, const ShmChannel& shm, TaskId tgt, std::byte* slot,
                   const std::byte* from, std::uint32_t len, std::uint32_t* crc) {
  if (len < kTimedChunk) {  // a message's short last piece: the longer ones are timed
    copy_bulk(slot, from, len);
    if (crc) *crc = crc32c_extend(0, from, len);
    return false;
  }
  if (crc != nullptr) {
    *crc = crc32c_copy_streaming(slot, from, len, 0);
    ++split.staged_streamed;
    return true;
  }
  std::uint64_t target_ns[2];
  shm.stage_copy_out_ns(tgt, target_ns);
  const bool streaming = split.stage_copy.next(target_ns);
  const std::uint64_t start = monotonic_ns();
  if (streaming) {
    copy_streaming(slot, from, len);
    ++split.staged_streamed;
  } else {
    copy_bulk(slot, from, len);
  }
  split.stage_copy.timed(streaming, per_full_chunk(monotonic_ns() - start, len));
  return streaming;
}

}  // namespace

bool Context::Impl::amsend_staged_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                         std::size_t uhdr_len, const void* data,
                                         std::size_t data_len, const Counters& counters) {
  if (uhdr_len > kPackedUhdrLimit) return false;
  Counters later;
  SplitSend* op = new_split_send_locked(tgt, data, data_len, counters, later);
  integrity_.next_split_crc = 0;  // each chunk carries its own
  const std::uint16_t flags = kSplitData | kStagedData | (integrity_.on ? kChecksummed : 0);
  if (split_frame_to_ring_locked(tgt, handler, flags, uhdr, uhdr_len, *op, later) !=
      RingSend::sent) {
    drop_unsent_split_locked(op);
    return false;
  }
  op->staged = true;
  ++split_.sent;
  ++split_.staged_sent;
  // The chunks follow the frame at once, named by the origin's record: the
  // target takes them once its header handler has named the landing.
  if (split_.stage_out.size() < npeers()) split_.stage_out.resize(npeers());
  op->short_start =
      data_len > kFirstChunk && split_.stage_out[tgt].empty() && shm_.stage_idle(tgt);
  split_.stage_out[tgt].push_back(op);
  ++split_.stage_out_count;
  push_stage_locked(tgt);
  return true;
}

bool Context::Impl::push_stages_locked() {
  bool any = false;
  for (TaskId t = 0; t < split_.stage_out.size() && split_.stage_out_count != 0; ++t) {
    if (!split_.stage_out[t].empty()) any |= push_stage_locked(t);
  }
  return any;
}

bool Context::Impl::push_stage_locked(TaskId tgt) {
  std::deque<SplitSend*>& queue = split_.stage_out[tgt];
  bool any = false;
  while (!queue.empty()) {
    std::byte* slot = shm_.stage_begin(tgt);
    if (slot == nullptr) break;
    SplitSend& op = *queue.front();
    // The target pulled the start while we stayed away (pull_staged_if_quiet_locked).
    const std::uint64_t pulled = shm_.stage_pulled(tgt, op.wire.id);
    if (pulled > op.pushed && pulled <= op.wire.len) {
      op.pushed = pulled;
      if (op.pushed == op.wire.len) {
        queue.pop_front();
        --split_.stage_out_count;
        continue;
      }
    }
    const auto* from = reinterpret_cast<const std::byte*>(op.wire.addr) + op.pushed;
    const std::uint32_t len = next_chunk_len(op);
    // The CPU's string copy or streaming stores (stage_copy_choice.hpp).
    std::uint32_t crc = 0;
    const bool streamed =
        copy_chunk_in(split_, shm_, tgt, slot, from, len, integrity_.on ? &crc : nullptr);
    if (shm_.stage_publish(tgt, op.wire.id, op.pushed, len, crc, streamed) == ShmSend::done_wake) {
      send_wake_locked(tgt);
    }
    op.pushed += len;
    any = true;
    shm_.note_poll();  // as in drain_stage_locked: a long push is no absence
    if (op.pushed == op.wire.len) {
      queue.pop_front();
      --split_.stage_out_count;
    }
  }
  return any;
}

void Context::Impl::land_staged_locked(TaskId src, const SplitWire& split, void* buffer,
                                       const CompletionJob& job) {
  ++split_.received;
  ++split_.staged_received;
  note_split_in_locked(src);
  if (!shm_.stages_from(src) || !split_reaches(src)) {
    (void)refuse_amsend_locked(false, src, Errc::no_connectivity, job.cookie,
                               fmt::format("staged amsend from task {}, whose staging area or "
                                           "memory this task cannot reach",
                                           src),
                               split.id);
    return;
  }
  auto* rec = new SplitRecv{src, job, split.id, SplitRecv::kNoCell, 0,
                            Errc::success, {}, buffer, split.addr, split.len, 0};
  rec->staged = true;
  const std::uint64_t token = split_.recvs.insert(rec);
  if (split_.stage_in.size() < npeers()) split_.stage_in.resize(npeers());
  split_.stage_in[src].open.push_back(token);
  ++split_.stage_in_count;
}

// How recent the other way's last landing must be: a window of 64 such
// Amsends each way takes ~300 us, and the sends that open the next window
// come before this task has landed any of the peer's (100 us caught only
// half of them).
constexpr std::uint64_t kBothWaysNs = 1'000'000;

bool Context::Impl::both_ways_locked(TaskId tgt) const {
  const Peer& p = peers_[tgt];
  return p.split_last_in_ns != 0 && split_.sends.find(p.split_last_out) != nullptr &&
         monotonic_ns() - p.split_last_in_ns < kBothWaysNs;
}

void Context::Impl::note_split_in_locked(TaskId src) {
  peers_[src].split_last_in_ns = monotonic_ns();
}

void Context::Impl::drop_staged_chunks_locked(TaskId src, std::uint64_t id) {
  if (split_.stage_in.size() < npeers()) split_.stage_in.resize(npeers());
  split_.stage_in[src].dropped.note(id);
}

void Context::Impl::await_staged_frame_locked(TaskId src, std::uint64_t id) {
  if (split_.stage_in.size() < npeers()) split_.stage_in.resize(npeers());
  split_.stage_in[src].resent.note(id);
}

bool Context::Impl::drain_stages_locked() {
  bool any = false;
  for (TaskId s = 0; s < split_.stage_in.size() && split_.stage_in_count != 0; ++s) {
    if (!split_.stage_in[s].open.empty()) any |= drain_stage_locked(s);
  }
  return any;
}

bool Context::Impl::stage_waiting_locked() const {
  ShmChannel::StageChunk chunk;
  for (TaskId s = 0; s < split_.stage_in.size() && split_.stage_in_count != 0; ++s) {
    if (!split_.stage_in[s].open.empty() && shm_.stage_peek(s, chunk)) return true;
  }
  return false;
}

bool Context::Impl::drain_stage_locked(TaskId src) {
  bool any = false;
  ShmChannel::StageChunk chunk;
  SplitCopyState::StageIn& in = split_.stage_in[src];
  while (!in.open.empty() && shm_.stage_peek(src, chunk)) {
    if (in.dropped.has(chunk.token)) {  // its Amsend was refused, or pulled meanwhile
      any = true;
      if (shm_.stage_release(src) == ShmSend::done_wake) send_wake_locked(src);
      continue;
    }
    // Chunks come in the order of their frames, so the head chunk belongs to
    // an open record (the oldest), or to a frame not taken yet: while no
    // record is open the loop does not look, and a frame that arrived
    // damaged comes again after the ones behind it (LAPIS_CHECKSUM).
    std::uint64_t token = 0;
    SplitRecv* rec = nullptr;
    for (const std::uint64_t t : in.open) {
      if (SplitRecv* r = *split_.recvs.find(t); r->id == chunk.token) {
        token = t;
        rec = r;
        break;
      }
    }
    if (rec == nullptr && in.resent.has(chunk.token)) break;
    any = true;
    const bool in_place = rec != nullptr && chunk.offset == rec->landed &&
                          chunk.len != 0 && chunk.len <= kChunk &&
                          chunk.len <= rec->len - rec->landed;
    if (in_place) [[likely]] {
      land_chunk_locked(*rec, chunk);
      rec->landed += chunk.len;
    } else if (rec != nullptr && chunk.offset + chunk.len <= rec->landed) {
      // We pulled it meanwhile (pull_staged_if_quiet_locked): released below, unread.
    } else {
      refuse_locked(src, Errc::hdr_len, 0,
                    fmt::format("staged chunk from task {} (record {:#x}, {} bytes at {}) "
                                "belongs to no staged amsend here, or not there",
                                src, chunk.token, chunk.len, chunk.offset));
      if (rec != nullptr) {
        rec->error = Errc::hdr_len;
        rec->detail = fmt::format("staged amsend from task {}: a chunk out of place", src);
        rec->landed = rec->len;
        in.dropped.note(rec->id);  // the rest of its chunks
      }
    }
    if (shm_.stage_release(src) == ShmSend::done_wake) send_wake_locked(src);
    if (rec != nullptr && rec->landed == rec->len) settle_staged_locked(src, token);
    // A peer we send to would take a long drain for our having left (pull_staged_if_quiet_locked).
    if (split_.sends.live() != 0) shm_.note_poll();
  }
  if (any) {
    in.quiet_since_ns = 0;
  } else if (!integrity_.on && !in.open.empty()) {
    pull_staged_if_quiet_locked(src);
  }
  return any;
}

void Context::Impl::settle_staged_locked(TaskId src, std::uint64_t token) {
  std::deque<std::uint64_t>& open = split_.stage_in[src].open;
  open.erase(std::find(open.begin(), open.end(), token));
  --split_.stage_in_count;
  std::unique_ptr<SplitRecv> done(*split_.recvs.take(token));
  check_held_splits_locked();  // landings keep their order
  settle_split_recv_locked(*done);
}

// An origin that stays out of the library pushes nothing: after
// kStagePullAfterNs with neither a chunk nor a poll of the origin's
// (InboxHeader::polls), the target reads the oldest record from that origin
// itself by cross-memory read, as split copy's target does with parts
// nobody claimed: kPullPiece at a time, each noted as a poll of ours, and
// only while the origin's polls stay still. Each piece is announced
// (stage_note_pulled) so that an origin that comes back skips what was
// read and pushes the rest, faster than a read; chunks it pushed before it
// saw that are dropped (drain_stage_locked), and those of a record pulled
// to the end until its split_done comes (StageIn::dropped).
// Without checksums only: a chunk's CRC is taken as it is pushed, so a
// pulled range has none to be checked against, and a checked Amsend waits
// for its origin instead.
//
// Why in pieces: a whole pull of a 1-8 MiB message took 1-17 ms, during
// which this task pushed nothing to the origin, which, if it was our own
// target, pulled in turn, and so on (mpi_bibw 4 MiB: 300-1300 of 2304
// messages pulled, 14-19 GB/s against 25 with pulls off). In pieces,
// stopping when the origin polls: 15-30 pulls, each cut short, and
// bandwidth even with pulls off (1 / 4 / 8 MiB 24.5-26.7 / 23.7-26.5 /
// 22.4-25.4 GB/s against 25.1-26.2 / 25.0-26.2 / 23.4-25.2, 3 rounds).
void Context::Impl::pull_staged_if_quiet_locked(TaskId src) {
  const std::uint64_t now = monotonic_ns();
  SplitCopyState::StageIn& in = split_.stage_in[src];
  // An origin still polling is busy (its own pushes to us or others, both
  // ways streaming): it will push. Pulling from it would only race it.
  const std::uint64_t polls = shm_.peer_polls(src);
  if (in.quiet_since_ns == 0 || polls != in.origin_polls) {
    in.quiet_since_ns = now;
    in.origin_polls = polls;
    return;
  }
  if (now - in.quiet_since_ns < kStagePullAfterNs) return;
  in.quiet_since_ns = 0;
  const std::uint64_t token = in.open.front();
  SplitRecv& rec = **split_.recvs.find(token);
  if (!rec.pulled) ++split_.staged_pulled;  // a record once, however many reads it takes
  rec.pulled = true;
  if (rec.error != Errc::success || rec.buffer == nullptr) rec.landed = rec.len;  // nothing to read
  while (rec.landed < rec.len) {
    shm_.note_poll();
    const std::uint64_t end = std::min(rec.len, (rec.landed / kPullPiece + 1) * kPullPiece);
    if (!split_copy_again_locked(src, static_cast<std::byte*>(rec.buffer) + rec.landed,
                                 rec.addr + rec.landed, end - rec.landed)) {
      rec.error = Errc::transport;
      rec.detail = fmt::format("staged amsend from task {}: its origin pushed nothing for {} us, "
                               "and reading the rest from its memory failed",
                               src, kStagePullAfterNs / 1000);
      rec.landed = rec.len;
      break;
    }
    rec.landed = end;
    shm_.stage_note_pulled(src, rec.id, rec.landed);
    if (shm_.peer_polls(src) != polls) {  // back: it pushes the rest
      ++split_.staged_pulls_cut;
      break;
    }
  }
  if (rec.landed < rec.len) return;
  in.dropped.note(rec.id);
  settle_staged_locked(src, token);
}

void Context::Impl::land_chunk_locked(SplitRecv& rec, const ShmChannel::StageChunk& chunk) {
  if (rec.error != Errc::success || rec.buffer == nullptr) return;  // failed, or discarded
  if (!integrity_.on) {
    // The copy is timed for the origin's choice of how to write the next chunks.
    const std::uint64_t start = chunk.len >= kTimedChunk ? monotonic_ns() : 0;
    copy_bulk(static_cast<std::byte*>(rec.buffer) + chunk.offset, chunk.data, chunk.len);
    if (start != 0) {
      shm_.stage_note_copy_out(rec.src, chunk.streamed,
                               per_full_chunk(monotonic_ns() - start, chunk.len));
    }
    return;
  }
  integrity_.corrupt_if_due(kCorruptSplit, 0, chunk.data, chunk.len);  // on the way, before the check
  auto* dst = static_cast<std::byte*>(rec.buffer) + chunk.offset;
  const std::uint32_t landed = crc32c_copy(dst, chunk.data, chunk.len, 0);
  // Damaged: the origin's buffer stays put until split_done, so split copy's
  // check reads the chunk again from there.
  if (landed != chunk.crc &&
      !checked_.check_split_locked(rec.src, dst, rec.addr + chunk.offset, chunk.len, chunk.crc,
                                   rec.detail, &landed)) {
    rec.error = Errc::data_corrupt;
  }
}

void Context::Impl::forget_staged_send_locked(const SplitSend& op) {
  if (op.tgt >= split_.stage_out.size()) return;
  std::deque<SplitSend*>& queue = split_.stage_out[op.tgt];
  const auto it = std::find(queue.begin(), queue.end(), &op);
  if (it == queue.end()) return;
  queue.erase(it);
  --split_.stage_out_count;
}

void Context::Impl::drop_stages_locked(TaskId task) {
  if (task < split_.stage_out.size()) {
    split_.stage_out_count -= split_.stage_out[task].size();
    split_.stage_out[task].clear();
  }
  if (task < split_.stage_in.size() && !split_.stage_in[task].open.empty()) {
    split_.stage_in_count -= split_.stage_in[task].open.size();
    split_.stage_in[task] = {};
    split_.recvs.erase_if([&](SplitRecv* rec) {
      if (!rec->staged || rec->src != task) return false;
      delete rec;
      return true;
    });
  }
}

}  // namespace lapi
