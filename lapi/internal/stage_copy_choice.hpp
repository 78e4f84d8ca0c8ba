#pragma once
// How a staged Amsend's origin copies a chunk (of 16 KiB or more) into the
// target's staging slot without checksums (with them it always streams, the
// CRC folded in: staged_copy.cc's copy_chunk_in): the CPU's cached string
// copy, or streaming stores that send the lines to memory instead of first
// taking them back from the target's cache, where the target read them a
// lap ago.
//
// Why both, chosen by timing: on a 2-core AMD EPYC VM the cached copy moved
// lapi_bandwidth's 64 KiB Amsends at 1.7-2.0 GB/s in some runs (the origin
// 75% in memcpy), 7-11 in most and 25 in a few, with the same buffers, so
// by where the two vCPUs ran; streaming stores ran at 10-15 in every run.
// A streaming copy returns quickly but leaves the target reading from
// memory, so neither side's time alone says which way is cheaper: choosing
// by the origin's own time (or its pipeline's) cost mpi_bibw at 64-128 KiB
// 15-30%, each task streaming to the other. So the origin times its copies,
// the target times its copies out (ShmChannel::stage_note_copy_out, by the
// way each chunk was written), and each batch of kBatch chunks goes the way
// whose two copies together took less of late; one batch in kProbeEvery
// goes the other way to keep its figures current.

#include <cstdint>

namespace lapi::internal {

class StageCopyChoice {
 public:
  static constexpr std::uint32_t kBatch = 8;
  static constexpr std::uint32_t kProbeEvery = 32;  // batches

  // Whether the next chunk goes by streaming stores, given the
  // target's recent ns to copy a chunk out, [streaming] (0: not yet known).
  bool next(const std::uint64_t (&target_ns)[2]) {
    if (chunks_++ % kBatch == 0) decide(target_ns);
    return streaming_;
  }
  // The origin copied a chunk the `streaming` way in `ns` (scaled to a full chunk).
  void timed(bool streaming, std::uint64_t ns) { ewma(ns_[streaming], ns); }

  // A recent mean: 3/4 the old one, never 0 once anything was timed.
  static void ewma(std::uint64_t& mean, std::uint64_t ns) {
    mean = mean == 0 ? ns + 1 : (3 * mean + ns) / 4 + 1;
  }

 private:
  void decide(const std::uint64_t (&target_ns)[2]) {
    ++batches_;
    if (ns_[0] == 0 || target_ns[0] == 0) {
      streaming_ = false;  // each way timed on both sides first
    } else if (ns_[1] == 0 || target_ns[1] == 0) {
      streaming_ = true;
    } else {
      const bool faster = ns_[1] + target_ns[1] < ns_[0] + target_ns[0];
      streaming_ = batches_ % kProbeEvery == 0 ? !faster : faster;
    }
  }

  std::uint64_t ns_[2] = {0, 0};  // the origin's recent ns per chunk, [streaming]
  std::uint64_t chunks_ = 0;
  std::uint64_t batches_ = 0;
  bool streaming_ = false;
};

}  // namespace lapi::internal
