// What build systems ask an MPI installation, answered by Lapis': the
// wrappers' Open MPI (--showme:*) and MPICH (-compile_info, -link_info, -v)
// queries, relocatable pkg-config files, CMake's find_package(MPI) for C,
// C++ and Fortran and Meson's dependency('mpi'), each finding Lapis (not
// the Open MPI and MPICH installed beside it) when its bin/ is first on
// PATH, and the programs they build running under Lapis' mpirun.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/support/launch.hpp"

namespace {

using lapis::testing::LaunchResult;
using lapis::testing::run_user_command;
using lapis::testing::runfile;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  REQUIRE(out.good());
}

// A fresh installation under TEST_TMPDIR/name.
std::string install(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string prefix = std::string(tmp) + "/" + name;
  const LaunchResult r = run_user_command("bash " + runfile("tools/install.sh") + " --from " +
                                          runfile("") + " " + prefix);
  INFO(r.output);
  REQUIRE(r.status == 0);
  return prefix;
}

constexpr const char* kHelloC = R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 0, one = 1;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  printf("C sum %d %.5s\n", n, version);
  MPI_Finalize();
  return 0;
}
)";

constexpr const char* kHelloF = R"(program hello
  use mpi
  integer :: ierr, n, one
  call MPI_Init(ierr)
  one = 1
  call MPI_Allreduce(one, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a,i0)', 'Fortran sum ', n
  call MPI_Finalize(ierr)
end program
)";

}  // namespace

TEST_CASE("wrappers answer Open MPI's and MPICH's queries") {
  const std::string prefix = install("wrappers");
  const std::string cc = prefix + "/bin/mpicc";
  const auto query = [&](const std::string& args) {
    const LaunchResult r = run_user_command(cc + " " + args);
    INFO(args, "\n", r.output);
    CHECK(r.status == 0);
    return r.output;
  };
  CHECK(query("--showme:compile") == "-I" + prefix + "/include\n");
  CHECK(query("--showme:link") == "-L" + prefix + "/lib -Wl,-rpath," + prefix + "/lib -lmpi\n");
  CHECK(query("--showme:incdirs") == prefix + "/include\n");
  CHECK(query("--showme:libdirs") == prefix + "/lib\n");
  CHECK(query("--showme:libs") == "mpi\n");
  CHECK(query("--showme:command") == "cc\n");
  CHECK(has(query("--showme:version"), "Lapis MPI 0."));
  const std::string show = query("--showme x.c -o x");
  CHECK(has(show, "cc -I" + prefix + "/include x.c -o x -L"));
  CHECK(has(show, "-lmpi"));
  CHECK(query("-show -c x.c") == "cc -I" + prefix + "/include -c x.c \n");
  const std::string compile_info = query("-compile_info x.c");
  CHECK(has(compile_info, "-I" + prefix + "/include x.c"));
  CHECK_FALSE(has(compile_info, "-lmpi"));
  CHECK(has(query("-link_info x.c"), "-lmpi"));
  CHECK(has(query("-v"), "mpicc: Lapis MPI"));  // then the compiler's own -v (on stderr)
  CHECK(query(std::string("--showme:libs")) == "mpi\n");
  const LaunchResult fort = run_user_command(prefix + "/bin/mpifort --showme:libs");
  CHECK(fort.output == "mpifort mpi\n");

  const LaunchResult bad = run_user_command(cc + " --showme:bogus");
  CHECK(bad.status == 1);
  CHECK(has(bad.output, "unknown option --showme:bogus"));
}

TEST_CASE("pkg-config files follow a moved installation") {
  const std::string first = install("pc_first");
  const std::string moved = first + "_moved";
  REQUIRE(run_user_command("mv " + first + " " + moved).status == 0);
  for (const char* name : {"mpi", "mpi-c", "mpi-cxx", "mpi-fort", "ompi-c", "ompi-fort"}) {
    CAPTURE(name);
    const LaunchResult pc = run_user_command("PKG_CONFIG_PATH=" + moved +
                                             "/lib/pkgconfig pkg-config --cflags --libs " + name);
    INFO(pc.output);
    CHECK(pc.status == 0);
    CHECK(has(pc.output, moved + "/lib/pkgconfig/../../include"));
    CHECK(has(pc.output, "-lmpi"));
  }
  write(moved + "/hello.c", kHelloC);
  const LaunchResult build = run_user_command(
      "cd " + moved + " && cc hello.c -o hello $(PKG_CONFIG_PATH=" + moved +
      "/lib/pkgconfig pkg-config --cflags --libs mpi) && bin/mpirun -n 2 --timeout 60 ./hello");
  INFO(build.output);
  CHECK(build.status == 0);
  CHECK(has(build.output, "C sum 2 Lapis"));
}

TEST_CASE("CMake's find_package(MPI) finds Lapis for C, C++ and Fortran") {
  const std::string prefix = install("cmake");
  const std::string src = prefix + "/cmake_project";
  REQUIRE(run_user_command("mkdir -p " + src).status == 0);
  write(src + "/hello.c", kHelloC);
  write(src + "/hello.f90", kHelloF);
  write(src + "/CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.10)
project(lapis_cmake C CXX Fortran)
find_package(MPI REQUIRED COMPONENTS C CXX Fortran)
message(STATUS "LAPIS_CHECK C=${MPI_C_LIBRARIES} CXX=${MPI_CXX_LIBRARIES} Fortran=${MPI_Fortran_LIBRARIES} EXEC=${MPIEXEC_EXECUTABLE}")
add_executable(hello_c hello.c)
target_link_libraries(hello_c MPI::MPI_C)
add_executable(hello_f hello.f90)
target_link_libraries(hello_f MPI::MPI_Fortran)
)");
  const LaunchResult r = run_user_command(
      "export PATH=" + prefix + "/bin:$PATH && cd " + src + " && cmake -S . -B build > cmake.log 2>&1; s=$?; "
      "grep LAPIS_CHECK cmake.log; [ $s -eq 0 ] || { cat cmake.log; exit 1; }; "
      "cmake --build build > build.log 2>&1 || { cat build.log; exit 1; }; "
      "mpirun -n 2 --timeout 60 build/hello_c && mpirun -n 2 --timeout 60 build/hello_f");
  INFO(r.output);
  REQUIRE(r.status == 0);
  // Each language found Lapis' libraries, not Open MPI's or MPICH's.
  CHECK(has(r.output, "C=" + prefix + "/lib/libmpi.so"));
  CHECK(has(r.output, "CXX=" + prefix + "/lib/libmpi.so"));
  CHECK(has(r.output, "Fortran=" + prefix + "/lib/libmpifort.so"));
  CHECK(has(r.output, "EXEC=" + prefix + "/bin/mpiexec"));
  CHECK_FALSE(has(r.output, "openmpi"));
  CHECK_FALSE(has(r.output, "mpich"));
  CHECK(has(r.output, "C sum 2 Lapis"));
  CHECK(has(r.output, "Fortran sum 2"));
}

TEST_CASE("Meson's dependency('mpi') finds Lapis through pkg-config and through the wrappers") {
  const std::string prefix = install("meson");
  const std::string src = prefix + "/meson_project";
  REQUIRE(run_user_command("mkdir -p " + src).status == 0);
  write(src + "/hello.c", kHelloC);
  write(src + "/hello.f90", kHelloF);
  write(src + "/meson.build", R"(project('lapis_meson', 'c', 'fortran')
method = get_option('mpi_method')
mpi_c = dependency('mpi', language: 'c', method: method)
mpi_f = dependency('mpi', language: 'fortran', method: method)
message('LAPIS_CHECK c=' + mpi_c.version() + ' f=' + mpi_f.version())
executable('hello_c', 'hello.c', dependencies: mpi_c)
executable('hello_f', 'hello.f90', dependencies: mpi_f)
)");
  write(src + "/meson_options.txt",
        "option('mpi_method', type: 'string', value: 'auto')\n");
  for (const char* method : {"pkg-config", "config-tool"}) {
    CAPTURE(method);
    const std::string build = std::string("build-") + method;
    // pkg-config: Lapis' files shadow Open MPI's ompi-c; config-tool: only PATH.
    const std::string env = std::string(method) == "pkg-config"
                                ? "export PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig; "
                                : "unset PKG_CONFIG_PATH; ";
    const LaunchResult r = run_user_command(
        env + "export PATH=" + prefix + "/bin:$PATH && cd " + src + " && meson setup " + build +
        " -Dmpi_method=" + method + " > " + build + ".log 2>&1; s=$?; grep -E 'LAPIS_CHECK|Run-time dependency mpi' " +
        build + ".log; [ $s -eq 0 ] || { cat " + build + ".log; exit 1; }; "
        "ninja -C " + build + " > ninja.log 2>&1 || { cat ninja.log; exit 1; }; "
        "ldd " + build + "/hello_c | grep libmpi; "
        "mpirun -n 2 --timeout 60 " + build + "/hello_c && mpirun -n 2 --timeout 60 " + build + "/hello_f");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(has(r.output, "LAPIS_CHECK c=0."));
    // ldd: Lapis' library (through the pkg-config file's relative path or
    // the wrapper's), not Open MPI's.
    CHECK(has(r.output, "libmpi.so.12 => " + prefix + "/lib/"));
    CHECK_FALSE(has(r.output, "openmpi"));
    CHECK(has(r.output, "C sum 2 Lapis"));
    CHECK(has(r.output, "Fortran sum 2"));
  }
}
