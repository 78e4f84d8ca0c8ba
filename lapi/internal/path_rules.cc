#include "lapi/internal/path_rules.hpp"

#include <algorithm>

namespace lapi::internal {
namespace {

// Host names as the error messages list them: each once, sorted.
std::string listed(std::vector<std::string> hosts) {
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::string text;
  for (const std::string& h : hosts) text += (text.empty() ? "" : ", ") + h;
  return text;
}

}  // namespace

Status parse_path_rules(std::string_view text, std::vector<PathRule>& out) {
  out.clear();
  while (true) {
    const std::size_t semicolon = text.find(';');
    const std::string_view rule = text.substr(0, semicolon);
    const std::size_t equals = rule.rfind('=');
    const std::string_view pair = rule.substr(0, equals == std::string_view::npos ? 0 : equals);
    const std::string_view method = equals == std::string_view::npos ? "" : rule.substr(equals + 1);
    if (equals == std::string_view::npos || (method != "shm" && method != "tcp") ||
        pair.find('-') == std::string_view::npos || pair.front() == '-' || pair.back() == '-' ||
        pair.find_first_of(" \t=") != std::string_view::npos) {
      return fail(Errc::set_val,
                  "LAPIS_PATHS: rule '{}' is not HOSTA-HOSTB=shm or HOSTA-HOSTB=tcp (rules are "
                  "separated by ';', '*' is any host)",
                  rule);
    }
    out.push_back({std::string(rule), std::string(pair),
                   method == "shm" ? PairMethod::shm : PairMethod::tcp});
    if (semicolon == std::string_view::npos) break;
    text.remove_prefix(semicolon + 1);
  }
  return Errc::success;
}

Status PathRules::resolve(const std::vector<PathRule>& rules, const std::vector<std::string>& hosts,
                          PathRules& out) {
  auto known = [&hosts](std::string_view h) {
    return h == "*" || std::find(hosts.begin(), hosts.end(), h) != hosts.end();
  };
  out.rules_.clear();
  for (const PathRule& rule : rules) {
    std::vector<Resolved> splits;
    for (std::size_t dash = rule.pair.find('-'); dash != std::string::npos;
         dash = rule.pair.find('-', dash + 1)) {
      const std::string a = rule.pair.substr(0, dash), b = rule.pair.substr(dash + 1);
      if (known(a) && known(b)) splits.push_back({a, b, rule.text, rule.method});
    }
    if (splits.empty()) {
      return fail(Errc::set_val,
                  "LAPIS_PATHS: rule '{}' names a host not in this job (its hosts: {})", rule.text,
                  listed(hosts));
    }
    if (splits.size() > 1) {
      return fail(
          Errc::set_val,
          "LAPIS_PATHS: rule '{}' pairs {} with {}, or {} with {}: its hosts' names are ambiguous",
          rule.text, splits[0].a, splits[0].b, splits[1].a, splits[1].b);
    }
    out.rules_.push_back(std::move(splits.front()));
  }
  return Errc::success;
}

std::optional<PairMethod> PathRules::lookup(const std::string& a, const std::string& b,
                                            std::string* rule) const {
  auto is = [](const std::string& pattern, const std::string& host) {
    return pattern == "*" || pattern == host;
  };
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if ((is(it->a, a) && is(it->b, b)) || (is(it->a, b) && is(it->b, a))) {
      if (rule) *rule = it->text;
      return it->method;
    }
  }
  return std::nullopt;
}

}  // namespace lapi::internal
