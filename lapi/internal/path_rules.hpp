#pragma once
// LAPIS_PATHS: per-pair rules for the method between two hosts (Nexus'
// per-link choice, made by the user). RULE[;RULE...], each
// HOSTA-HOSTB=METHOD: `shm` (the same host: the shared-memory rings and
// split copy) or `tcp` (UCX over TCP, even within one host); `*` stands for
// any host and HOSTA-HOSTA names the pairs within one host. The last rule
// that matches a pair wins; pairs no rule names keep the automatic choice.
//
// Host names may hold '-', so a rule's pair is split only once the job's
// hosts are known (at init, after the address exchange): at the '-' that
// leaves a host of the job, or '*', on both sides.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lapi/status.hpp"

namespace lapi::internal {

enum class PairMethod : unsigned char { shm, tcp };

struct PathRule {
  std::string text;  // as written, for messages
  std::string pair;  // "HOSTA-HOSTB", unsplit
  PairMethod method = PairMethod::shm;
};

// The syntax alone (Config::from_env); Errc::set_val naming the rule.
Status parse_path_rules(std::string_view text, std::vector<PathRule>& out);

class PathRules {
 public:
  // Splits every rule against the job's hosts; a rule that names a host not in the job, or that
  // splits two ways, is an Errc::set_val error naming it and the hosts.
  static Status resolve(const std::vector<PathRule>& rules, const std::vector<std::string>& hosts,
                        PathRules& out);
  // The method of the last rule matching the hosts {a, b} (either order), and its text.
  std::optional<PairMethod> lookup(const std::string& a, const std::string& b,
                                   std::string* rule = nullptr) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Resolved {
    std::string a, b, text;
    PairMethod method;
  };
  std::vector<Resolved> rules_;
};

}  // namespace lapi::internal
