#pragma once
// The name service of the job lapirun starts (MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name), as MPICH's mpiexec and Open MPI's mpirun serve their jobs': a thread
// of the launcher runs lapi's name service (lapi/names.hpp) on a port of its own, and the
// ranks get LAPIS_NAME_SERVER naming it. Jobs the ranks spawn inherit that variable, so they
// share the names. Jobs started apart share names through a lapis_names daemon instead.
#include <atomic>
#include <optional>
#include <string>
#include <thread>

namespace lapis::runtime::internal {

inline constexpr const char* kNameServerVariable = "LAPIS_NAME_SERVER";

class JobNames {
 public:
  // Listens on the interface holding `address` (jobs across hosts), else on loopback.
  // Throws std::runtime_error when the port cannot be opened.
  explicit JobNames(const std::optional<std::string>& address);
  ~JobNames();
  JobNames(const JobNames&) = delete;
  JobNames& operator=(const JobNames&) = delete;

  const std::string& port() const { return port_; }

 private:
  std::string port_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace lapis::runtime::internal
