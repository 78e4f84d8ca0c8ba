#pragma once
// MPI_Info objects: (key, value) strings in the order keys were first set
// (MPI_Info_get_nthkey numbers them that way).

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mpi {

struct Info {
  std::vector<std::pair<std::string, std::string>> entries;

  const std::string* find(std::string_view key) const {
    for (const auto& e : entries) {
      if (e.first == key) return &e.second;
    }
    return nullptr;
  }
  void set(std::string_view key, std::string_view value) {
    for (auto& e : entries) {
      if (e.first == key) {
        e.second = value;
        return;
      }
    }
    entries.emplace_back(key, value);
  }
  bool erase(std::string_view key) {
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (it->first == key) {
        entries.erase(it);
        return true;
      }
    }
    return false;
  }
};

using InfoPtr = std::shared_ptr<Info>;

// MPI_INFO_ENV's contents: what this process was started with.
InfoPtr make_env_info(int world_size, int thread_level);
// MPI_Info_create_env's, the same before MPI_Init, while MPI runs and after MPI_Finalize:
// MPI_INFO_ENV's keys but thread_level (MPI_Init chooses it), and the command and its
// arguments when the caller passes them (C's argc/argv; argc 0: none).
InfoPtr make_start_info(int world_size, int argc, char** argv);

}  // namespace mpi
