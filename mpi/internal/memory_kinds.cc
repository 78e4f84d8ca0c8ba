// memory_kinds.hpp: which requested memory kinds Lapis supports.
#include "mpi/internal/memory_kinds.hpp"

#include <array>
#include <cstdlib>
#include <vector>

namespace mpi {

namespace {

struct Kind {
  std::string_view name;
  std::array<std::string_view, 3> restrictors;
};
constexpr std::array<Kind, 2> kKinds = {{
    {"mpi", {"alloc_mem", "win_allocate", "win_allocate_shared"}},
    {"system", {}},
}};

// Splits at `sep`, keeping empty parts.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

// "mpi:alloc_mem": a known kind and only its own restrictors.
bool supported(std::string_view entry) {
  const std::vector<std::string_view> parts = split(entry, ':');
  for (const Kind& kind : kKinds) {
    if (parts.front() != kind.name) continue;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      bool known = false;
      for (std::string_view r : kind.restrictors) known |= !r.empty() && parts[i] == r;
      if (!known) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

std::string supported_memory_kinds(std::string_view requested) {
  std::vector<std::string_view> listed = {"mpi", "system"};
  for (std::string_view entry : split(requested, ',')) {
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    while (!entry.empty() && entry.back() == ' ') entry.remove_suffix(1);
    if (!supported(entry)) continue;
    bool seen = false;
    for (std::string_view l : listed) seen |= l == entry;
    if (!seen) listed.push_back(entry);
  }
  std::string out;
  for (std::string_view l : listed) (out += out.empty() ? "" : ",") += l;
  return out;
}

const std::string& process_memory_kinds() {
  static const std::string kinds = [] {
    const char* asked = std::getenv("LAPIS_MEMORY_ALLOC_KINDS");
    return supported_memory_kinds(asked != nullptr ? asked : "");
  }();
  return kinds;
}

}  // namespace mpi
