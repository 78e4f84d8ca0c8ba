// Staged copy: with LAPIS_CHECKSUM=crc32c, a large Amsend to a task on this
// node goes through a staging area in the target's inbox (shm_channel.hpp)
// instead of split copy's cross-memory reads and writes, so that the
// checksums ride on copies.
//
// Why: split copy moves the data in the kernel (process_vm_readv/writev),
// so its CRC32C needs two passes of its own, the origin's over its buffer
// before the frame leaves and the target's over what landed: 1 MiB Amsends
// ran at 0.59x of unchecked (lapi_bandwidth --checksum none,crc32c). Through
// staging, the origin copies each 64 KiB chunk in and takes its CRC right
// after, from its cache, and the target copies it out with crc32c_copy,
// whose CRC costs nothing beside the copy. A prototype of the two copies,
// two processes streaming 1 MiB messages on an AMD Zen 5 VM: 17-20 GB/s
// with both CRCs, against 19-23.5 for unchecked split copy. (A CRC fused
// into the origin's copy ran at 6-9 GB/s: its vector stores into lines the
// target just read stall where the CPU's string copy does not.)
//
//   origin                                   target
//   Amsend frame: kSplitData | kStagedData -> header handler names the buffer
//                                         <-  split_go (cell kStageCell, record)
//   chunks, each with its CRC32C          ->  each copied out and checked
//                                         <-  split_done after the last one
//   origin counter: buffer free again
//
// A damaged chunk is read again from the origin's buffer, which stays put
// until split_done, by cross-memory read (as split copy repairs). The origin
// pushes chunks only for records the target's split_go named, so every
// chunk in the area belongs to a receive the target knows; one that does
// not, or that is out of place, is refused and its Amsend fails.
//
// Only an Amsend with an origin counter is staged: its caller comes back to
// the library to wait for it, and those polls push the chunks (what the
// ring backlog relies on too). One without, or whose frame finds the ring
// full, takes split copy. A target asleep is woken after a chunk is
// published; an origin that found every slot taken and went to sleep, after
// a slot is freed (ShmChannel::stage_release).

#include <algorithm>
#include <cstring>
#include <memory>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

constexpr std::size_t kChunk = ShmChannel::kStageChunk;

std::uint32_t chunks_of(std::uint64_t len) {
  return static_cast<std::uint32_t>((len + kChunk - 1) / kChunk);
}

}  // namespace

bool Context::Impl::amsend_staged_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                         std::size_t uhdr_len, SplitSend* op,
                                         const Counters& later) {
  if (uhdr_len > kPackedUhdrLimit) return false;
  integrity_.next_split_crc = 0;  // each chunk carries its own
  const RingSend ring = amsend_shm_locked<true>(tgt, handler, kSplitData | kChecksummed | kStagedData,
                                                uhdr, uhdr_len, &op->wire, sizeof op->wire, later);
  if (ring != RingSend::sent) {
    if (ring == RingSend::full) shm_.note_ring_full();
    return false;
  }
  op->staged = true;
  ++split_.staged_sent;
  return true;
}

void Context::Impl::on_stage_go_locked(SplitSend& op, const SplitGoWire& msg) {
  if (!op.staged || op.token != 0 || msg.token == 0 || msg.part_bytes != kChunk ||
      msg.parts != chunks_of(op.wire.len)) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("split_go for staging names split amsend {:#x} to task {}, which "
                              "is not one this task stages, or not in {} chunks of {} bytes",
                              msg.id, msg.src, msg.parts, msg.part_bytes));
    return;
  }
  op.token = msg.token;
  if (split_.stage_out.size() < npeers()) split_.stage_out.resize(npeers());
  split_.stage_out[op.tgt].push_back(&op);
  ++split_.stage_out_count;
  push_stage_locked(op.tgt);
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
    const auto* from = reinterpret_cast<const std::byte*>(op.wire.addr) + op.pushed;
    const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunk, op.wire.len - op.pushed));
    // The CPU's string copy, then the CRC from this core's cache: the fused
    // copy's vector stores stall on the lines the target read a lap ago.
    std::memcpy(slot, from, len);
    const std::uint32_t crc = crc32c_extend(0, from, len);
    if (shm_.stage_publish(tgt, op.token, op.pushed, len, crc) == ShmSend::done_wake) {
      send_wake_locked(tgt);
    }
    op.pushed += len;
    any = true;
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
  if (!shm_.stages_from(src) || !split_reaches(src)) {
    (void)refuse_amsend_locked(false, src, Errc::no_connectivity, job.cookie,
                               fmt::format("staged amsend from task {}, whose staging area or "
                                           "memory this task cannot reach",
                                           src),
                               split.id);
    return;
  }
  auto* rec = new SplitRecv{src, job, split.id, SplitRecv::kNoCell, chunks_of(split.len),
                            Errc::success, {}, buffer, split.addr, split.len, 0};
  rec->staged = true;
  const std::uint64_t token = split_.recvs.insert(rec);
  if (split_.stage_in.size() < npeers()) split_.stage_in.resize(npeers());
  ++split_.stage_in[src];
  ++split_.stage_in_count;
  const SplitGoWire go{me_, kStageCell, split.id, token, reinterpret_cast<std::uint64_t>(buffer),
                       kChunk, rec->parts, 0};
  send_control_near_locked(src, Proto::split_go, &go, sizeof go);
}

bool Context::Impl::drain_stages_locked() {
  bool any = false;
  for (TaskId s = 0; s < split_.stage_in.size() && split_.stage_in_count != 0; ++s) {
    if (split_.stage_in[s] != 0) any |= drain_stage_locked(s);
  }
  return any;
}

bool Context::Impl::stage_waiting_locked() const {
  ShmChannel::StageChunk chunk;
  for (TaskId s = 0; s < split_.stage_in.size() && split_.stage_in_count != 0; ++s) {
    if (split_.stage_in[s] != 0 && shm_.stage_peek(s, chunk)) return true;
  }
  return false;
}

bool Context::Impl::drain_stage_locked(TaskId src) {
  bool any = false;
  ShmChannel::StageChunk chunk;
  while (split_.stage_in[src] != 0 && shm_.stage_peek(src, chunk)) {
    any = true;
    SplitRecv** found = split_.recvs.find(chunk.token);
    SplitRecv* rec = found != nullptr && (*found)->staged && (*found)->src == src ? *found : nullptr;
    const bool in_place = rec != nullptr && chunk.offset == rec->landed &&
                          chunk.len == std::min<std::uint64_t>(kChunk, rec->len - rec->landed);
    if (in_place) [[likely]] {
      land_chunk_locked(*rec, chunk);
      rec->landed += chunk.len;
    } else {
      refuse_locked(src, Errc::hdr_len, 0,
                    fmt::format("staged chunk from task {} (record {:#x}, {} bytes at {}) "
                                "belongs to no staged amsend here, or not there",
                                src, chunk.token, chunk.len, chunk.offset));
      if (rec != nullptr) {
        rec->error = Errc::hdr_len;
        rec->detail = fmt::format("staged amsend from task {}: a chunk out of place", src);
        rec->landed = rec->len;  // the rest of its chunks are refused as strays
      }
    }
    if (shm_.stage_release(src) == ShmSend::done_wake) send_wake_locked(src);
    if (rec != nullptr && rec->landed == rec->len) {
      --split_.stage_in[src];
      --split_.stage_in_count;
      std::unique_ptr<SplitRecv> done(*split_.recvs.take(chunk.token));
      check_held_splits_locked();  // landings keep their order
      settle_split_recv_locked(*done);
    }
  }
  return any;
}

void Context::Impl::land_chunk_locked(SplitRecv& rec, const ShmChannel::StageChunk& chunk) {
  if (rec.error != Errc::success || rec.buffer == nullptr) return;  // failed, or discarded
  integrity_.corrupt_if_due(kCorruptSplit, 0, chunk.data, chunk.len);  // on the way, before the check
  auto* dst = static_cast<std::byte*>(rec.buffer) + chunk.offset;
  const std::uint32_t landed = crc32c_copy(dst, chunk.data, chunk.len, 0);
  // Damaged: the origin's buffer stays put until split_done, so split copy's
  // check reads the chunk again from there.
  if (landed != chunk.crc && !check_split_locked(rec.src, dst, rec.addr + chunk.offset, chunk.len,
                                                 chunk.crc, rec.detail, &landed)) {
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
  if (task < split_.stage_in.size() && split_.stage_in[task] != 0) {
    split_.stage_in_count -= split_.stage_in[task];
    split_.stage_in[task] = 0;
    split_.recvs.erase_if([&](SplitRecv* rec) {
      if (!rec->staged || rec->src != task) return false;
      delete rec;
      return true;
    });
  }
}

}  // namespace lapi
