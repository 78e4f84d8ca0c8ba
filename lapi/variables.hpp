#pragma once
// Every LAPIS_* environment variable of every layer (core, MPI engine, MPI,
// launcher, tools), with its default and one line of documentation: the one
// registry lapis_info prints, the README's configuration table is generated
// from (tests/core:variables_test keeps them equal), and a misspelt
// variable is checked against at start-up. Each layer still parses its own
// variables; adding one means adding its line here.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lapi {

struct Variable {
  std::string_view name;
  std::string_view default_value;  // as the user would write it; "unset" when absent means off
  std::string_view layer;          // core, mpi engine, mpi, launcher, tools
  std::string_view doc;            // one line, Markdown
};

std::span<const Variable> variables();
const Variable* find_variable(std::string_view name);

// A LAPIS_* variable in the environment the registry does not know.
struct UnknownVariable {
  std::string name;
  std::string closest;  // the known name with the fewest edits, "" if none is close
};
std::vector<UnknownVariable> unknown_variables(char** environment);

// The README's configuration table (Markdown, one row per variable).
std::string variables_table();

// Prints one warning line per unknown variable to stderr, once per process,
// from task 0 only (LAPIS_RANK unset or 0): "lapis: warning: LAPIS_SHMM is
// not a Lapis variable; did you mean LAPIS_SHM?". Called by Context::init.
void warn_unknown_variables();

}  // namespace lapi
