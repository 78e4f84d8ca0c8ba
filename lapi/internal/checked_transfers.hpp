#pragma once
// LAPIS_CHECKSUM=crc32c's side of the engine (integrity.hpp has the scheme):
// checksummed Amsends (sealed ring frames and their replay copies, frames and
// landed data checked at the target, NACKs, retransmissions, acks), Puts,
// Gets and Rmws. Its methods live in integrity_amsend.cc, integrity_rma.cc
// and integrity_rmw.cc; the engine (Context::Impl, engine.hpp) owns one and
// calls it where a transfer is checked. It works on the engine's state
// under the engine's lock, as the engine's own methods do; its own state is
// the engine's Integrity member (the hot paths read its `on`).

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "lapi/context.hpp"
#include "lapi/internal/completion.hpp"
#include "lapi/internal/integrity.hpp"
#include "lapi/internal/replay_ring.hpp"
#include "lapi/internal/wire.hpp"

namespace lapi::internal {

class CheckedTransfers {
 public:
  CheckedTransfers(Context::Impl& engine, Integrity& state) : e_(engine), integrity_(state) {}
  CheckedTransfers(const CheckedTransfers&) = delete;
  CheckedTransfers& operator=(const CheckedTransfers&) = delete;

  // ---- integrity_amsend.cc: Amsend
  // Origin. A checksummed Amsend through UCX: small frames eager with a
  // replay copy, larger data by rendezvous with the buffer held.
  Status amsend_ucx_checked_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                   const void* uhdr, std::size_t uhdr_len, const void* data,
                                   std::size_t data_len, const Counters& counters);
  // A frame written in a ring up to its data (`head_len` bytes, user header
  // last): copies the data with its CRC and seals the frame as the next
  // replay frame to `tgt` (its next_seq, which keep_ring_frame_locked commits).
  void seal_ring_frame_locked(TaskId tgt, std::uint16_t flags, std::byte* frame,
                              std::size_t head_len, std::size_t uhdr_len, const void* data,
                              std::size_t data_len);
  // The replay copy of that frame, once published (off the latency path):
  // Lapis' words from the ring, the user header and data from the caller's
  // buffers, which the target never touches.
  void keep_ring_frame_locked(TaskId tgt, const std::byte* frame, std::size_t head_len,
                              const void* uhdr, std::size_t uhdr_len, const void* data,
                              std::size_t data_len);
  internal::ReplayRing& replay_for(TaskId tgt);
  Status send_replay_frame_locked(TaskId tgt, const internal::ReplayRing::Frame& frame);
  void on_checksum_nack_locked(const internal::ChecksumNackWire& msg);
  void release_failed_split_locked(TaskId tgt, const std::byte* frame, std::size_t len,
                                   std::size_t data_off);
  void on_checksum_ack_locked(const internal::ChecksumAckWire& msg);
  // Target: replay frame `seq` from `src` arrived intact (reported in batches).
  void note_verified_locked(TaskId src, std::uint64_t seq, std::size_t frame_len);
  void report_verified_locked(TaskId src);  // sends src the batch and starts a new one
  // Origin: the target's batch; those frames leave the replay ring's care.
  void on_checksum_verified_locked(const internal::ChecksumVerifiedWire& msg);
  // Target. Checks a checksummed frame as it arrived (rendezvous: its head
  // only). Nothing when intact; otherwise it was NACKed or refused, and the
  // value is what the UCX callback returns.
  std::optional<ucs_status_t> check_frame_locked(bool rndv, std::uint32_t src,
                                                 const std::byte* bytes, std::size_t sum_off,
                                                 std::size_t uhdr_len, void* data,
                                                 std::size_t length, std::uint64_t cookie,
                                                 std::uint64_t staged_id,
                                                 internal::DataCheck& check);
  [[gnu::cold, gnu::noinline]] void inject_frame_fault_locked(bool rndv, const std::byte* frame,
                                                              const std::byte* uhdr,
                                                              std::size_t uhdr_len, void* data,
                                                              std::size_t length,
                                                              std::uint16_t attempt);
  [[gnu::cold, gnu::noinline]] ucs_status_t frame_damaged_locked(
      bool rndv, std::uint32_t src, const internal::ChecksumWire& sum, std::uint64_t cookie,
      std::uint64_t staged_id);
  // Data of a held Amsend is in `buffer`: check it, then land, NACK or fail.
  void land_checked_locked(const CompletionJob& job, void* buffer, std::size_t len,
                           const internal::DataCheck& check);
  void send_checksum_ack_locked(TaskId src, std::uint64_t record, Errc code);
  ucs_status_t on_checksum_resend(const void* header, std::size_t header_len, void* data,
                                  std::size_t length, const ucp_am_recv_param_t* param);
  // Split copy: checks the landed data, copying it again from the origin's
  // buffer at `addr` while damaged. Returns whether it is intact in the end.
  // Staged copy's chunks pass `landed_crc`, the CRC taken while they were
  // copied out, for the first look.
  bool check_split_locked(TaskId src, void* buffer, std::uint64_t addr, std::size_t len,
                          std::uint32_t crc, std::string& detail,
                          const std::uint32_t* landed_crc = nullptr);
  void count_mismatch(TaskId src, const char* what, std::uint16_t attempt);
  // An operation of this task with `peer` failed for good: the remote
  // error handler hears of it (or stderr with LAPIS_DEBUG).
  void report_integrity_failure_locked(TaskId peer, Errc code, const std::string& detail);

  // ---- integrity_rma.cc: Put and Get
  // Whether a checked Put of `len` bytes goes as a frame to kPutFrameHandler
  // (put() sends it); put_checked_locked moves the others.
  bool put_as_frame(std::size_t len) const;
  Status put_checked_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                            const void* org_addr, ucp_rkey_h rkey, const Counters& counters);
  void post_held_put_locked(std::uint64_t token);
  void send_put_verify_locked(std::uint64_t token, const internal::HeldPut& h);
  void on_put_verify_locked(const internal::PutVerifyWire& msg);
  void on_put_verdict_locked(const internal::ChecksumAckWire& msg);
  Status get_checked_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                            ucp_rkey_h rkey, RemoteCounter tgt_cntr, Counter* org_cntr);
  void post_held_get_locked(std::uint64_t token);
  void on_get_check_locked(const internal::GetCheckWire& msg);
  void on_get_check_reply_locked(const internal::GetCheckReplyWire& msg);

  // ---- integrity_rmw.cc: Rmw
  Status rmw_checked_locked(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::uint64_t operand,
                            std::uint64_t compare, void* prev, unsigned width, Counter* org_cntr);
  void post_held_rmw_locked(std::uint64_t token);
  void on_rmw_request_locked(const internal::RmwRequestWire& msg);
  void on_rmw_reply_locked(const internal::RmwReplyWire& msg);


 private:
  Context::Impl& e_;
  Integrity& integrity_;
};

}  // namespace lapi::internal
