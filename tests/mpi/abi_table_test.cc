// The table behind Lapis' MPICH compatibility: every constant and predefined
// handle mpi.h defines, and the sizes and layout of its types, equal what
// MPICH's own mpi.h gives. One C program prints them all; it is compiled
// once against each header and the two outputs must agree name by name.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/launch.hpp"

namespace {

using lapis::testing::LaunchResult;
using lapis::testing::run_shell;
using lapis::testing::runfile;

// Compared elsewhere: the MPI version (hello_ranks_test checks
// MPI_Get_version against it), which Lapis sets for what it implements, not
// for MPICH's ABI; the callbacks, whose values are addresses in two
// different libraries (their names are compiled against both headers).
const std::set<std::string> kNotCompared = {"MPI_VERSION", "MPI_SUBVERSION"};

// MPI 4.1 constants that are new or moved since Debian's MPICH (4.0), with
// the values of MPICH 4.2's mpi.h (src/include/mpi.h.in): Lapis' values
// compare against those, whatever Debian's header says.
const std::map<std::string, long long> kNewerThanDebianMpich = {
    {"MPI_BUFFER_AUTOMATIC", -2},
    {"MPI_T_ERR_NOT_ACCESSIBLE", 79},
    {"MPI_ERR_ERRHANDLER", 80},
    {"MPICH_ERR_LAST_CLASS", 80},
    {"MPI_COMM_TYPE_RESOURCE_GUIDED", 4}};

// The object-like MPI_/MPIX_/MPICH_ macros of Lapis' mpi.h.
std::set<std::string> defined_constants(const std::string& header) {
  std::ifstream in(header);
  std::stringstream text;
  text << in.rdbuf();
  static const std::regex define(R"((?:^|\n)#define[ \t]+((?:MPI|MPIX|MPICH)_[A-Za-z0-9_]+)[ \t])");
  std::set<std::string> names;
  const std::string all = text.str();
  for (std::sregex_iterator it(all.begin(), all.end(), define), end; it != end; ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

std::string printer_source(const std::set<std::string>& names) {
  std::ostringstream c;
  c << "#include <mpi.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n"
    << "#define P(x) printf(\"%s %lld\\n\", #x, (long long)(intptr_t)(x))\n"
    << "#define S(name, v) printf(\"%s %lld\\n\", name, (long long)(v))\n"
    << "#define IS(T, C) S(#T \" is \" #C, _Generic((T)0, C: 1, default: 0))\n"
    << "int main(void) {\n";
  for (const std::string& n : names) {
    if (kNotCompared.count(n)) continue;
    if (n.size() > 3 && n.compare(n.size() - 3, 3, "_FN") == 0) {
      c << "  (void)sizeof(" << n << ");\n";  // exists in both (unevaluated: no link)
      continue;
    }
    if (auto newer = kNewerThanDebianMpich.find(n); newer != kNewerThanDebianMpich.end()) {
      c << "#ifdef LAPIS_SIDE\n  P(" << n << ");\n#else\n  S(\"" << n << "\", " << newer->second
        << ");\n#endif\n";
      continue;
    }
    c << "  P(" << n << ");\n";
  }
  c << "  S(\"sizeof(MPI_Status)\", sizeof(MPI_Status));\n";
  for (const char* f : {"count_lo", "count_hi_and_cancelled", "MPI_SOURCE", "MPI_TAG", "MPI_ERROR"}) {
    c << "  S(\"offsetof(MPI_Status, " << f << ")\", offsetof(MPI_Status, " << f << "));\n";
  }
  for (const char* t : {"MPI_Aint", "MPI_Offset", "MPI_Count", "MPI_Fint", "MPI_Comm",
                        "MPI_Datatype", "MPI_Group", "MPI_Request", "MPI_Op", "MPI_Errhandler",
                        "MPI_Message", "MPI_Info", "MPI_Win", "MPI_F08_status"}) {
    c << "  S(\"sizeof(" << t << ")\", sizeof(" << t << "));\n";
  }
  // The MPI_T enumerators (enum values, not macros, in both headers).
  for (const char* e : {"MPI_T_VERBOSITY_USER_BASIC", "MPI_T_VERBOSITY_MPIDEV_ALL",
                        "MPI_T_BIND_NO_OBJECT", "MPI_T_BIND_MPI_INFO", "MPI_T_SCOPE_CONSTANT",
                        "MPI_T_SCOPE_READONLY", "MPI_T_SCOPE_ALL_EQ", "MPI_T_PVAR_CLASS_STATE",
                        "MPI_T_PVAR_CLASS_GENERIC", "MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE",
                        "MPI_T_SOURCE_UNORDERED"}) {
    c << "  P(" << e << ");\n";
  }
  for (const char* t : {"MPI_T_enum", "MPI_T_cvar_handle", "MPI_T_pvar_handle",
                        "MPI_T_pvar_session", "MPI_T_event_registration", "MPI_T_event_instance"}) {
    c << "  S(\"sizeof(" << t << ")\", sizeof(" << t << "));\n";
  }
  // Same C types, not just sizes (C++ name mangling and printf formats see them).
  c << "  IS(MPI_Aint, long); IS(MPI_Offset, long); IS(MPI_Count, long); IS(MPI_Fint, int);\n"
    << "  IS(MPI_Comm, int); IS(MPI_Datatype, int);\n"
    << "  return 0;\n}\n";
  return c.str();
}

std::map<std::string, std::string> values(const std::string& output) {
  std::map<std::string, std::string> v;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    const auto space = line.rfind(' ');
    if (space != std::string::npos) v[line.substr(0, space)] = line.substr(space + 1);
  }
  return v;
}

}  // namespace

TEST_CASE("every constant of Lapis' mpi.h has MPICH's value") {
  if (run_shell("command -v mpicc.mpich").status != 0) {
    MESSAGE("SKIPPED: mpicc.mpich is not installed (tools/setup.sh installs libmpich-dev)");
    return;
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string header = runfile("mpi/include/mpi.h");
  const std::set<std::string> names = defined_constants(header);
  CHECK(names.size() >= 250);  // guards the parser: a regex that finds nothing proves nothing
  const std::string src = std::string(tmp) + "/abi_values.c";
  std::ofstream(src) << printer_source(names);

  // Lapis' header alone (no library needed); MPICH's through its wrapper.
  const std::string include = header.substr(0, header.rfind('/'));
  LaunchResult lapis = run_shell("cc -std=c11 -DLAPIS_SIDE -Werror=incompatible-pointer-types -I" + include +
                                 " " + src + " -o " + tmp + "/values_lapis && " + tmp +
                                 "/values_lapis 2>&1");
  INFO(lapis.output);
  REQUIRE(lapis.status == 0);
  LaunchResult mpich = run_shell("mpicc.mpich -std=c11 " + src + " -o " + tmp +
                                 "/values_mpich && " + tmp + "/values_mpich 2>&1");
  INFO(mpich.output);
  REQUIRE(mpich.status == 0);  // also: MPICH's header defines every name Lapis' does

  const auto ours = values(lapis.output), theirs = values(mpich.output);
  CHECK(ours.size() >= 300);
  CHECK(ours.size() == theirs.size());
  for (const auto& [name, value] : ours) {
    CAPTURE(name);
    auto it = theirs.find(name);
    REQUIRE(it != theirs.end());
    CHECK(value == it->second);
  }
  CHECK(ours.at("MPI_COMM_WORLD") == std::to_string(0x44000000));
  CHECK(ours.at("sizeof(MPI_Status)") == "20");
  CHECK(ours.at("MPI_Aint is long") == "1");
}

namespace {

// NAME -> value text of every PARAMETER (NAME=VALUE) in a Fortran header,
// blanks removed (MPICH writes several per statement).
std::map<std::string, std::string> fortran_parameters(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::string> out;
  const std::regex statement(R"(^\s*PARAMETER\s*\((.*)\)\s*$)", std::regex::icase);
  const std::regex item(R"((\w+)\s*=\s*([^,]+))");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, statement)) continue;
    const std::string body = m[1];
    for (std::sregex_iterator it(body.begin(), body.end(), item), end; it != end; ++it) {
      std::string value = (*it)[2];
      std::erase(value, ' ');
      std::string name = (*it)[1];
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out[name] = value;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("mpif.h's constants equal MPICH's mpif.h, name by name") {
  const std::string mpich = "/usr/include/x86_64-linux-gnu/mpich/mpif.h";
  if (!std::ifstream(mpich)) {
    MESSAGE("SKIPPED: " << mpich << " is missing (tools/setup.sh installs libmpich-dev)");
    return;
  }
  const auto ours = fortran_parameters(runfile("mpi/fortran/include/mpif.h"));
  const auto theirs = fortran_parameters(mpich);
  REQUIRE(ours.size() > 200);
  // MPICH writes some values as expressions; these are their values.
  const std::map<std::string, std::string> evaluated = {
      {"512-1", "511"}, {"128-1", "127"}, {"8192-1", "8191"}, {"(-32766)", "-32766"}};
  int compared = 0;
  for (const auto& [name, value] : theirs) {
    auto it = ours.find(name);
    if (it == ours.end() || kNotCompared.count(name) != 0) continue;
    const auto e = evaluated.find(value);
    const std::string expect = e != evaluated.end() ? e->second : value;
    // MPICH has no MPI_INTEGER16: both give the null datatype.
    if (expect == "MPI_DATATYPE_NULL") {
      CHECK(it->second == ours.at("MPI_DATATYPE_NULL"));
    } else {
      CAPTURE(name);
      CHECK(it->second == expect);
    }
    ++compared;
  }
  CHECK(compared > 200);
}
