#pragma once
// Where the ranks of a job run: the hosts of -H/--host and --hostfile, and the placement of
// ranks on them. Pure (the caller reads the host file), so it can be unit tested.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace lapis::runtime {

struct HostSlots {
  std::string name;
  int slots = 1;
  bool operator==(const HostSlots&) const = default;
};

struct HostError {
  std::string message;  // one line naming the problem
};

// "-H a:2,b,c:1": comma-separated host[:slots]; a host without ":N" has one slot.
std::variant<std::vector<HostSlots>, HostError> parse_host_list(std::string_view text);

// A host file in Open MPI's or MPICH's format: one host per line, "host", "host slots=N" or
// "host:N"; '#' starts a comment; blank lines are skipped. `file_name` names it in errors.
std::variant<std::vector<HostSlots>, HostError> parse_hostfile(std::string_view contents,
                                                               std::string_view file_name);

// Rank r's host. With ranks_per_host > 0 every host gets that many ranks (slots ignored);
// otherwise hosts are filled in order up to their slots. nranks == 0 means "as many as there
// are places". Errors: no hosts, more ranks than places.
std::variant<std::vector<std::string>, HostError> place_ranks(const std::vector<HostSlots>& hosts, int nranks,
                                                              int ranks_per_host);

// Names that mean this host: "localhost", "127.0.0.1", "::1", and `own_name` (gethostname)
// or its first label.
bool is_local_host(std::string_view host, std::string_view own_name);

}  // namespace lapis::runtime
