#include "lapi/config.hpp"
#include "lapi/internal/path_rules.hpp"
#include "lapi/variables.hpp"

#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>
#include <cstdlib>
#include <string_view>

namespace lapi {

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

// A plain decimal count: no sign, no suffix, no trailing text.
bool parse_count(const char* v, std::size_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || v[0] == '-') return false;
  out = n;
  return true;
}

// An optional 0|1 variable; false when it holds anything else.
bool parse_flag(const char* name, bool& out) {
  const char* v = env(name);
  if (v == nullptr) return true;
  const std::string_view s(v);
  if (s != "0" && s != "1") return false;
  out = s == "1";
  return true;
}

// PATH[,PATH...]:N with N >= 1.
bool parse_fault_corrupt(std::string_view s, FaultCorrupt& out) {
  const std::size_t colon = s.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::size_t every = 0;
  const std::string count(s.substr(colon + 1));
  if (!parse_count(count.c_str(), every) || every < 1 || every > UINT32_MAX) return false;
  struct Name {
    std::string_view name;
    std::uint32_t bits;
  };
  constexpr Name kNames[] = {{"shm", kCorruptShm},     {"eager", kCorruptEager},
                             {"rndv", kCorruptRndv},   {"split", kCorruptSplit},
                             {"put", kCorruptPut},     {"get", kCorruptGet}, {"rmw", kCorruptRmw},
                             {"all", kCorruptAll}};
  std::uint32_t paths = 0;
  std::string_view list = s.substr(0, colon);
  if (list.empty() || list.back() == ',') return false;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    std::uint32_t bits = 0;
    for (const Name& n : kNames) {
      if (n.name == item) bits = n.bits;
    }
    if (bits == 0) return false;
    paths |= bits;
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  if (paths == 0) return false;
  out = FaultCorrupt{paths, static_cast<std::uint32_t>(every)};
  return true;
}

}  // namespace

std::string_view to_string(Checksum checksum) {
  return checksum == Checksum::crc32c ? "crc32c" : "none";
}

std::string_view to_string(ProgressMode mode) {
  return mode == ProgressMode::polling ? "polling" : "interrupt";
}

std::string_view to_string(CompletionPolicy policy) {
  switch (policy) {
    case CompletionPolicy::inline_run: return "inline";
    case CompletionPolicy::thread: return "thread";
    case CompletionPolicy::fiber: return "fiber";
  }
  return "?";
}

namespace {

// The comma-separated items of `list` (an empty item stays, for the caller to refuse).
std::vector<std::string_view> items(std::string_view list) {
  std::vector<std::string_view> out;
  for (std::size_t comma; (comma = list.find(',')) != std::string_view::npos; list.remove_prefix(comma + 1)) {
    out.push_back(list.substr(0, comma));
  }
  out.push_back(list);
  return out;
}

// "shm", "tcp", "shm,tcp" (either order; each at most once).
bool parse_transports(std::string_view list, std::uint8_t& out) {
  std::uint8_t bits = 0;
  for (const std::string_view name : items(list)) {
    const std::uint8_t bit = name == "shm" ? kTransportShm : name == "tcp" ? kTransportTcp : 0;
    if (bit == 0 || (bits & bit) != 0) return false;
    bits |= bit;
  }
  out = bits;
  return true;
}

// LAPIS_NET_IF names an interface that exists here and is up; otherwise the
// error lists those that would do.
Status check_net_if(const std::string& name, const char* variable = "LAPIS_NET_IF") {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return Errc::success;  // nothing to check against: UCX will say
  bool found = false, up = false;
  std::set<std::string> usable;  // an interface appears once per address family
  for (const ifaddrs* i = all; i != nullptr; i = i->ifa_next) {
    if (i->ifa_name == nullptr) continue;
    const bool is_up = (i->ifa_flags & IFF_UP) != 0;
    if (name == i->ifa_name) {
      found = true;
      up = up || is_up;
    }
    if (is_up) usable.insert(i->ifa_name);
  }
  ::freeifaddrs(all);
  std::string list;
  for (const std::string& n : usable) list += (list.empty() ? " (up here: " : ", ") + n;
  if (!list.empty()) list += ")";
  if (!found) return fail(Errc::set_val, "{}='{}': no such network interface{}", variable, name, list);
  if (!up) return fail(Errc::set_val, "{}='{}': the interface is down{}", variable, name, list);
  return Errc::success;
}

// LAPIS_LINKS: up to Config::kMaxLinks interface names, comma-separated, each once and each one
// that exists here (check_net_if); empty: no striping.
Status parse_links(std::string_view list, std::vector<std::string>& out) {
  out.clear();
  if (list.empty()) return Errc::success;
  for (const std::string_view item : items(list)) {
    const std::string name(item);
    if (name.empty() || std::find(out.begin(), out.end(), name) != out.end() || out.size() == Config::kMaxLinks) {
      return fail(Errc::set_val,
                  "LAPIS_LINKS='{}': expected up to {} network interfaces, comma-separated, each once",
                  list, Config::kMaxLinks);
    }
    if (Status s = check_net_if(name, "LAPIS_LINKS"); !s.ok()) return s;
    out.push_back(name);
  }
  return Errc::success;
}

}  // namespace

Status Config::from_env(Config& config) {
  warn_unknown_variables();  // a misspelt LAPIS_ variable would otherwise be ignored silently
  if (const char* v = env("LAPIS_MODE")) {
    const std::string_view s(v);
    if (s == "polling") {
      config.mode = ProgressMode::polling;
    } else if (s == "interrupt") {
      config.mode = ProgressMode::interrupt;
    } else {
      return fail(Errc::set_val, "LAPIS_MODE='{}': expected polling or interrupt", s);
    }
  }
  if (const char* v = env("LAPIS_POLICY")) {
    const std::string_view s(v);
    if (s == "inline") {
      config.policy = CompletionPolicy::inline_run;
    } else if (s == "thread") {
      config.policy = CompletionPolicy::thread;
    } else if (s == "fiber") {
      config.policy = CompletionPolicy::fiber;
    } else {
      return fail(Errc::set_val, "LAPIS_POLICY='{}': expected inline, thread or fiber", s);
    }
  }
  if (const char* v = env("LAPIS_AM_EAGER_LIMIT")) {
    if (!parse_count(v, config.eager_limit)) {
      return fail(Errc::set_val, "LAPIS_AM_EAGER_LIMIT='{}': expected a byte count", v);
    }
  }
  if (const char* v = env("LAPIS_TAKEOVER_GRACE_US")) {
    std::size_t us = 0;
    if (!parse_count(v, us) || us < 1 || us > 10'000'000) {
      return fail(Errc::set_val,
                  "LAPIS_TAKEOVER_GRACE_US='{}': expected microseconds (1..10000000)", v);
    }
    config.takeover_grace_us = static_cast<std::uint32_t>(us);
  }
  if (const char* v = env("LAPIS_PROGRESS_NICE")) {
    char* end = nullptr;
    errno = 0;
    const long nice = std::strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || nice < -20 || nice > 19) {
      return fail(Errc::set_val, "LAPIS_PROGRESS_NICE='{}': expected a nice value (-20..19)", v);
    }
    config.progress_nice = static_cast<int>(nice);
    config.progress_nice_set = true;
  }
  if (const char* v = env("LAPIS_UCX_POLL_EVERY")) {
    std::size_t every = 0;
    if (!parse_count(v, every) || every < 1 || every > 4096) {
      return fail(Errc::set_val, "LAPIS_UCX_POLL_EVERY='{}': expected a number of polls (1..4096)", v);
    }
    config.ucx_quiet_every = static_cast<std::uint32_t>(every);
  }
  if (!parse_flag("LAPIS_ERROR_CHECK", config.error_checking)) {
    return fail(Errc::set_val, "LAPIS_ERROR_CHECK='{}': expected 0 or 1", env("LAPIS_ERROR_CHECK"));
  }
  if (!parse_flag("LAPIS_SHM", config.shm)) {
    return fail(Errc::set_val, "LAPIS_SHM='{}': expected 0 or 1", env("LAPIS_SHM"));
  }
  if (const char* v = env("LAPIS_TRANSPORTS")) {
    if (!parse_transports(v, config.transports)) {
      return fail(Errc::set_val, "LAPIS_TRANSPORTS='{}': expected shm, tcp or shm,tcp", v);
    }
  }
  if (const char* v = env("LAPIS_PATHS")) {
    std::vector<internal::PathRule> rules;
    if (Status s = internal::parse_path_rules(v, rules); !s.ok()) return s;
    config.paths = v;
  }
  if (const char* v = env("LAPIS_SPLIT_COPY")) {
    const std::string_view s(v);
    if (s != "0" && s != "1" && s != "auto") {
      return fail(Errc::set_val, "LAPIS_SPLIT_COPY='{}': expected 0, 1 or auto", v);
    }
    config.split_copy = s != "0";
    config.split_copy_always = s == "1";
  }
  if (const char* v = env("LAPIS_STAGED_COPY")) {
    const std::string_view s(v);
    if (s != "0" && s != "1") return fail(Errc::set_val, "LAPIS_STAGED_COPY='{}': expected 0 or 1", v);
    config.staged_copy = s == "1";
  }
  if (const char* v = env("LAPIS_SPLIT_MIN")) {
    if (!parse_count(v, config.split_min)) {
      return fail(Errc::set_val, "LAPIS_SPLIT_MIN='{}': expected a byte count", v);
    }
    config.split_min_auto = false;  // the user's choice, not a preference the machine may veto
  }
  if (const char* v = env("LAPIS_CHECKSUM")) {
    const std::string_view s(v);
    if (s == "none") {
      config.checksum = Checksum::none;
    } else if (s == "crc32c") {
      config.checksum = Checksum::crc32c;
    } else {
      return fail(Errc::set_val, "LAPIS_CHECKSUM='{}': expected none or crc32c", s);
    }
  }
  if (const char* v = env("LAPIS_FAULT_CORRUPT")) {
    if (!parse_fault_corrupt(v, config.fault_corrupt)) {
      return fail(Errc::set_val,
                  "LAPIS_FAULT_CORRUPT='{}': expected PATH[,PATH...]:N (PATH: shm, eager, rndv, "
                  "split, put, get or all; N >= 1)",
                  v);
    }
    if (config.checksum != Checksum::crc32c) {
      return fail(Errc::set_val,
                  "LAPIS_FAULT_CORRUPT='{}' needs LAPIS_CHECKSUM=crc32c (damage nobody checks "
                  "would be delivered)",
                  v);
    }
  }
  if (const char* v = env("LAPIS_NET_IF")) {
    config.net_if = v;
    if (Status s = check_net_if(config.net_if); !s.ok()) return s;
  }
  if (const char* v = env("LAPIS_LINKS")) {
    if (Status s = parse_links(v, config.links); !s.ok()) return s;
  }
  if (const char* v = env("LAPIS_STRIPE_MIN")) {
    if (!parse_count(v, config.stripe_min) || config.stripe_min < 4096) {
      return fail(Errc::set_val, "LAPIS_STRIPE_MIN='{}': expected a byte count of at least 4096", v);
    }
  }
  return Errc::success;
}

}  // namespace lapi
