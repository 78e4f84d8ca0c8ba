#include "runtime/internal/pmix_bootstrap.hpp"

#include <pmix.h>

#include <algorithm>
#include <cstring>

namespace lapis::runtime::internal {
namespace {

[[noreturn]] void throw_pmix(const std::string& what, pmix_status_t rc) {
  throw BootstrapError("PMIx: " + what + " failed: " + PMIx_Error_string(rc));
}

pmix_proc_t make_proc(const std::string& nspace, pmix_rank_t rank) {
  pmix_proc_t proc;
  PMIX_PROC_CONSTRUCT(&proc);
  PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
  return proc;
}

// Prefixed to every blob so PMIx never has to carry an empty byte object.
constexpr std::byte kBlobMarker{0x4c};

}  // namespace

PmixBootstrap::PmixBootstrap() {
  pmix_proc_t me;
  PMIX_PROC_CONSTRUCT(&me);
  if (pmix_status_t rc = PMIx_Init(&me, nullptr, 0); rc != PMIX_SUCCESS) {
    throw_pmix("PMIx_Init (PMIX_RANK is set: is the launcher's PMIx server reachable?)", rc);
  }
  nspace_ = me.nspace;
  rank_ = static_cast<int>(me.rank);

  const pmix_proc_t job = make_proc(nspace_, PMIX_RANK_WILDCARD);
  pmix_value_t* value = nullptr;
  pmix_status_t rc = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &value);
  if (rc != PMIX_SUCCESS || value == nullptr || value->type != PMIX_UINT32) {
    if (value != nullptr) PMIX_VALUE_RELEASE(value);
    PMIx_Finalize(nullptr, 0);
    throw_pmix("PMIx_Get(PMIX_JOB_SIZE)", rc != PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM);
  }
  size_ = static_cast<int>(value->data.uint32);
  PMIX_VALUE_RELEASE(value);
}

PmixBootstrap::~PmixBootstrap() { PMIx_Finalize(nullptr, 0); }

std::vector<std::vector<std::byte>> PmixBootstrap::allgather(std::span<const std::byte> mine) {
  std::lock_guard lock(mutex_);
  const std::string key = "lapis." + std::to_string(next_seq_++);

  std::vector<std::byte> marked(1 + mine.size());
  marked[0] = kBlobMarker;
  if (!mine.empty()) std::memcpy(marked.data() + 1, mine.data(), mine.size());
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = reinterpret_cast<char*>(marked.data());  // PMIx_Put copies; we keep ownership
  value.data.bo.size = marked.size();
  if (pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &value); rc != PMIX_SUCCESS) {
    throw_pmix("PMIx_Put(" + key + ")", rc);
  }
  if (pmix_status_t rc = PMIx_Commit(); rc != PMIX_SUCCESS) throw_pmix("PMIx_Commit", rc);
  fence(true, "PMIx_Fence for " + key);

  std::vector<std::vector<std::byte>> blobs(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    const pmix_proc_t peer = make_proc(nspace_, static_cast<pmix_rank_t>(r));
    pmix_value_t* got = nullptr;
    const pmix_status_t rc = PMIx_Get(&peer, key.c_str(), nullptr, 0, &got);
    const bool ok = rc == PMIX_SUCCESS && got != nullptr && got->type == PMIX_BYTE_OBJECT &&
                    got->data.bo.size >= 1 && static_cast<std::byte>(got->data.bo.bytes[0]) == kBlobMarker;
    if (ok) {
      const auto* bytes = reinterpret_cast<const std::byte*>(got->data.bo.bytes);
      blobs[static_cast<std::size_t>(r)].assign(bytes + 1, bytes + got->data.bo.size);
    }
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
    if (!ok) throw_pmix("PMIx_Get(" + key + ") from rank " + std::to_string(r), rc != PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM);
  }
  return blobs;
}

void PmixBootstrap::barrier() {
  std::lock_guard lock(mutex_);
  ++next_seq_;  // keeps keys aligned with the lapirun numbering of collectives
  fence(false, "PMIx_Fence (barrier)");
}

void PmixBootstrap::barrier_without(std::span<const int> failed) {
  std::lock_guard lock(mutex_);
  ++next_seq_;
  std::vector<std::uint32_t> survivors;  // pmix_rank_t
  for (int r = 0; r < size_; ++r) {
    if (std::find(failed.begin(), failed.end(), r) == failed.end()) survivors.push_back(static_cast<std::uint32_t>(r));
  }
  fence(false, "PMIx_Fence (barrier of the ranks left)", survivors);
}

void PmixBootstrap::fence(bool collect_data, const std::string& what, const std::vector<std::uint32_t>& ranks) {
  std::vector<pmix_proc_t> procs;
  if (ranks.empty()) procs.push_back(make_proc(nspace_, PMIX_RANK_WILDCARD));
  for (std::uint32_t r : ranks) procs.push_back(make_proc(nspace_, r));
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect_data, PMIX_BOOL);
  const pmix_status_t rc = PMIx_Fence(procs.data(), procs.size(), &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) throw_pmix(what, rc);
}

}  // namespace lapis::runtime::internal
