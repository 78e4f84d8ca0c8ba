// The install step and the user tools: tools/install.sh puts headers,
// libraries, wrappers and pkg-config files under a prefix; the installed
// mpicc builds a plain MPI program and the installed mpirun runs it.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/launch.hpp"

namespace {

using Run = lapis::testing::LaunchResult;

Run sh(const std::string& command) { return lapis::testing::run_user_command(command); }

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// The names of the functions `headers` declare (`int MPI_Send(`, `double MPI_Wtime(`...).
std::set<std::string> declared_functions(const std::vector<std::string>& headers) {
  static const std::regex declaration(
      R"((?:^|\n)[ \t]*(?:extern[ \t]+)?(?:int|double|void|char)[ \t*]+((?:MPI|PMPI|LAPI|LAPIS)_[A-Za-z0-9_]+)[ \t]*\()");
  std::set<std::string> names;
  for (const std::string& header : headers) {
    std::ifstream in(header);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    for (std::sregex_iterator it(all.begin(), all.end(), declaration), end; it != end; ++it) {
      names.insert((*it)[1]);
    }
  }
  return names;
}

// Writes a C program that includes `include` and takes the address of every function `headers`
// declare; linking it against the installed library fails for any the library does not export.
std::string write_reference_program(const std::vector<std::string>& headers,
                                    const std::string& include, const std::string& path,
                                    std::size_t& count) {
  const std::set<std::string> names = declared_functions(headers);
  count = names.size();
  std::ofstream out(path);
  out << "#include <" << include << ">\n#include <stdio.h>\n"
      << "typedef void (*fn_t)(void);\nstatic const fn_t functions[] = {\n";
  for (const std::string& name : names) out << "  (fn_t)&" << name << ",\n";
  out << "};\nint main(void) { printf(\"%zu functions\\n\", sizeof functions / sizeof *functions); "
         "return 0; }\n";
  return path;
}

}  // namespace

TEST_CASE("every function the MPI headers and lapi.h declare is exported by the installed library") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string prefix = std::string(tmp) + "/exports";
  Run install = sh("bash " + lapis::testing::runfile("tools/install.sh") + " --from " +
                   lapis::testing::runfile("") + " " + prefix);
  INFO(install.output);
  REQUIRE(install.status == 0);
  // mpi.h and every mpi_proto*.h it includes: a header added to mpi/BUILD's
  // C_HEADERS is checked without a change here.
  std::vector<std::string> mpi_headers;
  for (const auto& entry : std::filesystem::directory_iterator(prefix + "/include")) {
    const std::string name = entry.path().filename();
    if (name.starts_with("mpi") && name.ends_with(".h") && name != "mpif.h") {
      mpi_headers.push_back(entry.path());
    }
  }
  CHECK(mpi_headers.size() >= 2);
  struct Library {
    std::string name;
    std::vector<std::string> headers;
    const char* lib;
    std::size_t at_least;  // guards the parser: a regex that finds nothing proves nothing
  };
  std::size_t mpi_count = 0;
  for (const Library& l :
       {Library{"mpi", mpi_headers, "mpi", 300},
        Library{"pmpi", {prefix + "/include/lapis_pmpi.h"}, "mpi", 300},
        Library{"lapi", {prefix + "/include/lapi.h"}, "lapi", 20}}) {
    CAPTURE(l.name);
    std::size_t count = 0;
    const std::string src = write_reference_program(
        l.headers, l.lib + std::string(".h"), std::string(tmp) + "/all_" + l.name + ".c", count);
    CHECK(count >= l.at_least);
    if (l.name == "mpi") mpi_count = count;
    if (l.name == "pmpi") CHECK(count == mpi_count);  // every MPI_X has its PMPI_X
    const std::string exe = std::string(tmp) + "/all_" + l.name;
    Run link = sh("cc -std=c11 -I" + prefix + "/include " + src + " -o " + exe + " -L" + prefix +
                  "/lib -Wl,-rpath," + prefix + "/lib -l" + l.lib + " && " + exe);
    INFO(link.output);
    CHECK(link.status == 0);
    CHECK(link.output.find(std::to_string(count) + " functions") != std::string::npos);
  }
  // And nothing else from libmpi (mpi/shared/libmpi.map): the C++ inside stays local, so a
  // program's symbols cannot collide with it. (The linker may still export a weak copy of a
  // libstdc++ template that libstdc++.so exports too: the same code under its own name.)
  Run symbols = sh("nm -D --defined-only " + prefix + "/lib/libmpi.so.12");
  REQUIRE(symbols.status == 0);
  static const std::regex line(R"([0-9a-f]+ ([A-Za-z]) (\S+))");
  // lapis_f_: what the Fortran bindings (libmpifort) call in libmpi beside the MPI interface;
  // MPII_: the hooks MPICH's C++ bindings (libmpichcxx) call.
  static const std::regex interface(
      R"((P?MPIX?_|MPIR_|MPII_|mpipriv|lapis_wait_state|lapis_f_)\S*)");
  static const std::regex standard_library(R"(_ZNSt\S*|_ZSt\S*)");
  int exported = 0;
  std::istringstream in(symbols.output);
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    if (std::islower(static_cast<unsigned char>(m[1].str()[0])) ||
        m[2].str().starts_with("_end") || m[2] == "_edata" || m[2] == "__bss_start") {
      continue;  // local (TLS shows up so) and the linker's own markers
    }
    CAPTURE(text);
    CHECK((std::regex_match(m[2].str(), interface) ||
           (m[1] == "W" && std::regex_match(m[2].str(), standard_library))));
    ++exported;
  }
  CHECK(exported >= 600);  // MPI_X and PMPI_X of every function: the parse found them
}

TEST_CASE("install, compile with mpicc, run with mpirun and mpiexec") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string prefix = std::string(tmp) + "/prefix";
  const std::string tree = lapis::testing::runfile("");

  Run install = sh("bash " + lapis::testing::runfile("tools/install.sh") + " --from " + tree + " " +
                   prefix);
  INFO(install.output);
  REQUIRE(install.status == 0);
  for (const char* f : {"/include/mpi.h", "/lib/libmpi.so", "/lib/pkgconfig/mpi.pc", "/bin/mpicc",
                        "/bin/mpicxx", "/bin/mpirun", "/bin/mpiexec", "/bin/lapirun"}) {
    CHECK_MESSAGE(exists(prefix + f), f);
  }

  Run show = sh(prefix + "/bin/mpicc -show hello.c -o hello");
  INFO(show.output);
  CHECK(show.status == 0);
  CHECK(show.output.find("-I" + prefix + "/include") != std::string::npos);
  CHECK(show.output.find("-lmpi") != std::string::npos);

  const std::string exe = std::string(tmp) + "/hello";
  Run build = sh(prefix + "/bin/mpicc -O1 -I" + lapis::testing::runfile("tests/mpi/progs") + " " +
                 lapis::testing::runfile("tests/mpi/progs/hello.c") + " -o " + exe);
  INFO(build.output);
  REQUIRE(build.status == 0);

  Run run = sh(prefix + "/bin/mpirun -n 3 --timeout 60 " + exe);
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK(count(run.output, "OK\n") == 3);

  Run exec = sh(prefix + "/bin/mpiexec -np 2 --oversubscribe " + exe);
  INFO(exec.output);
  CHECK(exec.status == 0);
  CHECK(count(exec.output, "OK\n") == 2);

  // Two programs in one job (MPMD), Hydra's -env in the second one's part.
  Run mpmd = sh(prefix + "/bin/mpiexec -n 1 " + exe + " : -np 2 -env HELLO_ROLE worker " + exe);
  INFO(mpmd.output);
  CHECK(mpmd.status == 0);
  CHECK(count(mpmd.output, "OK\n") == 3);

  // C++ through mpicxx.
  const std::string cxx_src = std::string(tmp) + "/hello.cc";
  FILE* f = std::fopen(cxx_src.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs(
      "#include <mpi.h>\n#include <cstdio>\n"
      "int main(int argc, char** argv) { MPI_Init(&argc, &argv); int r; "
      "MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Barrier(MPI_COMM_WORLD); "
      // A collective from the installed library (exported from libmpi.so).
      "int one = 1, n = 0; MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); "
      "MPI_Finalize(); if (n != 2) return 1; "
      "std::printf(\"CXX OK\\n\"); return 0; }\n",
      f);
  std::fclose(f);
  Run cxx = sh(prefix + "/bin/mpicxx " + cxx_src + " -o " + tmp + "/hello_cxx && " + prefix +
               "/bin/mpirun -n 2 " + tmp + "/hello_cxx");
  INFO(cxx.output);
  CHECK(cxx.status == 0);
  CHECK(count(cxx.output, "CXX OK") == 2);

  Run pc = sh("PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig pkg-config --cflags --libs mpi");
  if (pc.status != 127) {  // pkg-config may be absent; the file was checked above
    INFO(pc.output);
    CHECK(pc.output.find("-lmpi") != std::string::npos);
  }
}

TEST_CASE("Fortran: the installed mpifort / mpif90 / mpif77 build mpif.h, mpi and mpi_f08 programs") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string dir = std::string(tmp) + "/fortran";
  const std::string prefix = dir + "/prefix";
  Run install = sh("bash " + lapis::testing::runfile("tools/install.sh") + " --from " +
                   lapis::testing::runfile("") + " " + prefix);
  INFO(install.output);
  REQUIRE(install.status == 0);
  for (const char* f : {"/include/mpif.h", "/include/mpi.mod", "/include/mpi_f08.mod",
                        "/lib/libmpifort.so",
                        "/bin/mpifort", "/bin/mpif90", "/bin/mpif77"}) {
    CHECK_MESSAGE(exists(prefix + f), f);
  }

  Run show = sh(prefix + "/bin/mpifort -show prog.f90 -o prog");
  INFO(show.output);
  CHECK(show.status == 0);
  CHECK(show.output.rfind("gfortran ", 0) == 0);
  CHECK(show.output.find("-I" + prefix + "/include") != std::string::npos);
  CHECK(show.output.find("-lmpifort -lmpi") != std::string::npos);
  Run compile_only = sh(prefix + "/bin/mpif90 -show -c prog.f90");
  CHECK(compile_only.output.find("-lmpi") == std::string::npos);

  // The mpi module's explicit interfaces catch a wrong call at compile time.
  const std::string bad = dir + "/bad.f90";
  FILE* f = std::fopen(bad.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("program bad\n  use mpi\n  integer :: ierr\n  call MPI_Init(ierr)\n"
             "  call MPI_Comm_rank(MPI_COMM_WORLD, ierr)\n  call MPI_Finalize(ierr)\nend\n",
             f);
  std::fclose(f);
  Run wrong = sh("cd " + dir + " && " + prefix + "/bin/mpifort " + bad + " -o " + dir + "/bad");
  INFO(wrong.output);
  CHECK(wrong.status != 0);
  CHECK(wrong.output.find("Missing actual argument") != std::string::npos);

  // Each program runs in its own directory: the module test writes checks.mod.
  struct Program {
    const char* wrapper;
    const char* source;
  };
  for (const Program& p : {Program{"mpif77", "fortran_fixed.f"},
                           Program{"mpifort", "fortran_module.f90"},
                           Program{"mpif90", "fortran_f08.f90"}}) {
    CAPTURE(p.source);
    const std::string exe = dir + "/" + p.source + ".exe";
    Run build = sh("cd " + dir + " && " + prefix + "/bin/" + p.wrapper + " " +
                   lapis::testing::runfile(std::string("tests/mpi/progs/") + p.source) + " -o " +
                   exe);
    INFO(build.output);
    REQUIRE(build.status == 0);
    Run run = sh(prefix + "/bin/mpirun -n 3 --timeout 60 " + exe);
    INFO(run.output);
    CHECK(run.status == 0);
    CHECK(count(run.output, "OK\n") == 3);
    CHECK(run.output.find("FAILED") == std::string::npos);
  }
}
