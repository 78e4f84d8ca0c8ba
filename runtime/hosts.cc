#include "runtime/hosts.hpp"

#include <charconv>

namespace lapis::runtime {
namespace {

constexpr int kMaxSlots = 1 << 16;

std::optional<int> parse_slots(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < 1 || value > kMaxSlots) return std::nullopt;
  return value;
}

// Host names travel on the agent's command line: letters, digits, '.', '-', '_' and ':'-free.
bool is_host_name(std::string_view name) {
  if (name.empty() || name.size() > 253 || name.front() == '-') return false;
  for (char c : name) {
    const bool ok = c == '.' || c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// "host" or "host:N"; nullopt with `why` set on error.
std::optional<HostSlots> parse_entry(std::string_view entry, std::string& why) {
  HostSlots host;
  const auto colon = entry.find(':');
  host.name = std::string(entry.substr(0, colon));
  if (!is_host_name(host.name)) {
    why = "invalid host name '" + host.name + "'";
    return std::nullopt;
  }
  if (colon != std::string_view::npos) {
    const auto slots = parse_slots(entry.substr(colon + 1));
    if (!slots) {
      why = "invalid slot count in '" + std::string(entry) + "': expected host:N with N from 1 to " +
            std::to_string(kMaxSlots);
      return std::nullopt;
    }
    host.slots = *slots;
  }
  return host;
}

}  // namespace

std::variant<std::vector<HostSlots>, HostError> parse_host_list(std::string_view text) {
  std::vector<HostSlots> hosts;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view entry = text.substr(start, end - start);
    std::string why;
    const auto host = parse_entry(entry, why);
    if (!host) return HostError{"invalid host list '" + std::string(text) + "': " + why};
    hosts.push_back(*host);
    start = end + 1;
  }
  return hosts;
}

std::variant<std::vector<HostSlots>, HostError> parse_hostfile(std::string_view contents,
                                                               std::string_view file_name) {
  std::vector<HostSlots> hosts;
  int line_number = 0;
  for (std::size_t start = 0; start < contents.size();) {
    std::size_t end = contents.find('\n', start);
    if (end == std::string_view::npos) end = contents.size();
    std::string_view line = contents.substr(start, end - start);
    start = end + 1;
    ++line_number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) {
      return HostError{"hostfile " + std::string(file_name) + " line " + std::to_string(line_number) + ": " + why};
    };
    const auto space = line.find_first_of(" \t");
    std::string why;
    auto host = parse_entry(line.substr(0, space), why);
    if (!host) return fail(why);
    // Words after the name: "slots=N" (Open MPI); max_slots= is accepted and changes nothing.
    std::string_view rest = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
    while (!rest.empty()) {
      const auto next = rest.find_first_of(" \t");
      const std::string_view word = rest.substr(0, next);
      rest = next == std::string_view::npos ? std::string_view{} : trim(rest.substr(next));
      if (word.starts_with("slots=")) {
        const auto slots = parse_slots(word.substr(6));
        if (!slots) return fail("invalid '" + std::string(word) + "': expected slots=N with N from 1 to " +
                                std::to_string(kMaxSlots));
        host->slots = *slots;
      } else if (!word.starts_with("max_slots=")) {
        return fail("unexpected '" + std::string(word) + "': expected 'host', 'host slots=N' or 'host:N'");
      }
    }
    hosts.push_back(*host);
  }
  if (hosts.empty()) return HostError{"hostfile " + std::string(file_name) + " names no host"};
  return hosts;
}

std::variant<std::vector<std::string>, HostError> place_ranks(const std::vector<HostSlots>& hosts, int nranks,
                                                              int ranks_per_host) {
  if (hosts.empty()) return HostError{"no hosts to run on"};
  std::vector<std::string> places;
  for (const HostSlots& host : hosts) {
    const int count = ranks_per_host > 0 ? ranks_per_host : host.slots;
    for (int i = 0; i < count; ++i) places.push_back(host.name);
  }
  if (nranks == 0) return places;
  if (static_cast<std::size_t>(nranks) > places.size()) {
    return HostError{std::to_string(nranks) + " ranks requested but the hosts offer only " +
                     std::to_string(places.size()) + " places (add slots, hosts or -ppn)"};
  }
  places.resize(static_cast<std::size_t>(nranks));
  return places;
}

bool is_local_host(std::string_view host, std::string_view own_name) {
  if (host == "localhost" || host == "127.0.0.1" || host == "::1") return true;
  if (host == own_name) return true;
  return !own_name.empty() && host == own_name.substr(0, own_name.find('.'));
}

}  // namespace lapis::runtime
