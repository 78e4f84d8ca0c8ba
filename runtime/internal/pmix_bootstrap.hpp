#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/bootstrap.hpp"

namespace lapis::runtime::internal {

// Bootstrap through the PMIx server of an external launcher (Open MPI's mpirun, Slurm's srun).
// Each allgather is Put("lapis.<seq>") + Commit + Fence(collect data) + one Get per rank.
// Construction calls PMIx_Init; destruction calls PMIx_Finalize. At most one per process.
class PmixBootstrap final : public Bootstrap {
 public:
  PmixBootstrap();
  ~PmixBootstrap() override;
  PmixBootstrap(const PmixBootstrap&) = delete;
  PmixBootstrap& operator=(const PmixBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void barrier() override;
  void barrier_without(std::span<const int> failed) override;
  std::string_view kind() const override { return "pmix"; }

 private:
  // Over `procs` (every rank when empty). Precondition: mutex_ held.
  void fence(bool collect_data, const std::string& what, const std::vector<std::uint32_t>& ranks = {});

  std::string nspace_;
  int rank_ = 0;
  int size_ = 0;
  std::mutex mutex_;  // guards next_seq_ and orders Put/Fence/Get sequences
  std::uint32_t next_seq_ = 0;
};

}  // namespace lapis::runtime::internal
