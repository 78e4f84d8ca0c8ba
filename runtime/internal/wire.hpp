#pragma once
// The lapirun rendezvous protocol: framed messages over a Unix stream socket (one host) or TCP
// (a job across hosts) between each rank (client) and the launcher (server). Both ends are built
// from this header, so integers travel in native byte order: hosts of one job must share it.
// Hello's payload is the u32 size followed by the job's secret (LAPIS_JOB_SECRET), which a TCP
// launcher requires.
//
//   client                                   server
//   Hello{seq=rank, payload=u32 size}   ->
//                                       <-   Welcome{}            or Error{text}
//   Allgather{seq=k, payload=blob}      ->   (waits for all ranks' call number k)
//                                       <-   AllgatherResult{seq=k, payload=gathered} or Error{text}
//   Barrier{seq=k}                      ->
//                                       <-   BarrierDone{seq=k}   or Error{text}
//   Enter{payload=leave call name}      ->   (no reply) the rank is in the job until Leave
//   Leave{}                             ->   (no reply) the rank called its leave call
//   Abort{}                             ->   (no reply) the rank is ending the whole job (MPI_Abort)
//
// `k` counts this rank's collective calls (allgathers and barriers together) from 0, so the
// server can tell a rank that called a different collective than the others.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace lapis::runtime::internal {

// Set (=1) in every rank's environment by lapirun --continue-on-failure: the rank then listens
// for Failed frames between its collectives.
inline constexpr const char* kContinueOnFailureVariable = "LAPIS_CONTINUE_ON_FAILURE";

// Set in every rank's environment by lapirun when the job has several programs (MPMD): the
// index of the rank's program, MPI_APPNUM.
inline constexpr const char* kAppNumVariable = "LAPIS_APPNUM";

enum class MsgType : std::uint32_t {
  kNone = 0,
  kHello = 1,
  kWelcome = 2,
  kAllgather = 3,
  kAllgatherResult = 4,
  kBarrier = 5,
  kBarrierDone = 6,
  kError = 7,
  kEnter = 8,
  kLeave = 9,
  kFailed = 10,  // launcher to ranks (--continue-on-failure): rank `seq` failed; payload says how
  kAbort = 11,   // rank to launcher: its exit ends the job, even under --continue-on-failure
};

struct FrameHeader {
  MsgType type = MsgType::kNone;
  std::uint32_t seq = 0;
  std::uint64_t length = 0;  // payload bytes following the header
};
static_assert(sizeof(FrameHeader) == 16);

// Larger payloads are treated as a corrupt stream rather than allocated.
inline constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 30;

// Header followed by payload, ready to write.
std::vector<std::byte> encode_frame(MsgType type, std::uint32_t seq, std::span<const std::byte> payload);

// AllgatherResult payload: u64 count, count x u64 lengths, then the blobs back to back.
std::vector<std::byte> encode_gather_result(std::span<const std::vector<std::byte>> blobs);
// nullopt if the payload is malformed or does not hold exactly `expected_count` blobs.
std::optional<std::vector<std::vector<std::byte>>> decode_gather_result(std::span<const std::byte> payload,
                                                                        std::size_t expected_count);

std::span<const std::byte> as_bytes(const std::string& text);
std::string to_string(std::span<const std::byte> bytes);
const char* msg_type_name(MsgType type);

}  // namespace lapis::runtime::internal
