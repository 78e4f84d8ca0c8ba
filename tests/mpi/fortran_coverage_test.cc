// Every function the C headers declare (mpi.h and the mpi_proto*.h it
// includes) has its Fortran binding: a line in
// mpi/fortran/api.txt, from which the glue, mpif.h and the mpi module are
// generated (so a new C function without one fails here, naming it), and
// api.txt names no function they lack. Reads the sources. Also: handles
// convert between C and Fortran unchanged.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "mpi.h"
#include "tests/support/launch.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

}  // namespace

TEST_CASE("api.txt binds every MPI function of mpi.h, and only those") {
  // mpi.h and every mpi_proto*.h beside it (mpi/BUILD's C_HEADERS).
  std::string headers;
  const auto include = std::filesystem::path(lapis::testing::runfile("mpi/include/mpi.h")).parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(include)) {
    if (entry.path().filename().string().starts_with("mpi")) headers += read(entry.path());
  }
  CHECK(headers.find("int MPI_Win_create(") != std::string::npos);  // the sub-headers were read
  const std::set<std::string> c_functions = matches(
      headers, std::regex(R"((?:^|\n)[ \t]*(?:int|double|MPI_Aint)[ \t*]+(MPI_\w+)[ \t]*\()"));
  const std::set<std::string> bound = matches(
      read(lapis::testing::runfile("mpi/fortran/api.txt")), std::regex(R"((?:^|\n)(MPI_\w+)\()"));
  CHECK(c_functions.size() >= 140);  // the parser found the header's functions
  // C-only: they convert what Fortran hands to C. (The MPI-1 names removed in MPI 3.0 are bound
  // too, with their INTEGER addresses and callbacks: MPICH's Fortran library has them, and so
  // programs built against it call them.)
  const std::set<std::string> c_only = {"MPI_Status_c2f", "MPI_Status_f2c", "MPI_Status_f082c",
                                        "MPI_Status_c2f08"};
  // MPI-4's large-count forms (MPI_Send_c ...) have no lines of their own:
  // MPI 4.0 gives them to Fortran only as mpi_f08 overloads with
  // INTEGER(MPI_COUNT_KIND) counts, which gen_f08.py derives from
  // mpi_proto_large.h and the base function's line.
  const auto large_count = [](const std::string& name) { return name.ends_with("_c"); };
  // The tool information interface (MPI_T_*) has no Fortran bindings in MPI 4.0.
  const auto tool = [](const std::string& name) { return name.starts_with("MPI_T_"); };
  for (const std::string& name : c_functions) {
    if (c_only.count(name) || large_count(name) || tool(name)) continue;
    CHECK_MESSAGE(bound.count(name) == 1, name, " has no line in mpi/fortran/api.txt");
  }
  for (const std::string& name : bound) {
    CHECK_MESSAGE(c_functions.count(name) == 1, name, " in api.txt is not declared in the C headers");
  }
}

TEST_CASE("a Fortran handle is the C handle: the c2f / f2c conversions are the identity") {
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
  CHECK(MPI_Comm_c2f(MPI_COMM_SELF) == static_cast<MPI_Fint>(MPI_COMM_SELF));
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE_PRECISION)) == MPI_DOUBLE_PRECISION);
  CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
  CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
  CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC);
  CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV);
  CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL);
}

namespace {

// The dummy declarations of one specific in the generated mpi_f08 module.
std::string interface_of(const std::string& module, const std::string& specific) {
  const auto begin = module.find("SUBROUTINE " + specific + "(");
  REQUIRE_MESSAGE(begin != std::string::npos, specific, " is not in mpi_f08");
  const auto end = module.find("END SUBROUTINE " + specific, begin);
  REQUIRE(end != std::string::npos);
  return module.substr(begin, end - begin);
}

}  // namespace

TEST_CASE("mpi_f08 declares what C declares const INTENT(IN), and returns pointers as TYPE(C_PTR)") {
  const std::string module = read(lapis::testing::runfile("mpi/fortran/mpi_f08.f90"));
  // Send buffers, from the const of their C prototypes (MPI 4.0, 19.1.2).
  CHECK(interface_of(module, "MPI_Send_f08ts").find("DIMENSION(..), INTENT(IN) :: buf") !=
        std::string::npos);
  CHECK(interface_of(module, "MPI_Isend_f08ts_large")
            .find("DIMENSION(..), INTENT(IN), ASYNCHRONOUS :: buf") != std::string::npos);
  CHECK(interface_of(module, "MPI_File_write_at_f08ts")
            .find("DIMENSION(..), INTENT(IN) :: buf") != std::string::npos);
  const std::string allreduce = interface_of(module, "MPI_Allreduce_f08ts");
  CHECK(allreduce.find("INTENT(IN) :: sendbuf") != std::string::npos);
  CHECK(allreduce.find("DIMENSION(..) :: recvbuf") != std::string::npos);
  // ... and receive buffers without it.
  CHECK(interface_of(module, "MPI_Recv_f08ts").find("INTENT(IN) :: buf") == std::string::npos);
  // MPI_Buffer_detach's address as a C pointer, under MPICH's names (no "ts": no choice buffer).
  CHECK(interface_of(module, "MPI_Buffer_detach_f08")
            .find("TYPE(C_PTR), INTENT(OUT) :: buffer_addr") != std::string::npos);
  CHECK(interface_of(module, "MPI_Buffer_detach_f08_large").find("MPI_COUNT_KIND") !=
        std::string::npos);
  // MPI 4.0's large forms whose only wider integer is an address (disp_unit).
  CHECK(interface_of(module, "MPI_Win_allocate_f08_large")
            .find("INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: disp_unit") != std::string::npos);
  CHECK(module.find("SUBROUTINE MPI_F_sync_reg_f08ts(buf)") != std::string::npos);
}
