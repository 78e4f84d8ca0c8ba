// The profiling interface: a tool library that defines MPI_Send,
// MPI_Allreduce, MPIX_Comm_agree and MPI_Finalize, loaded before libmpi.so,
// sees every call the program makes and reaches Lapis through the PMPI_ and
// PMPIX_ names.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/launch.hpp"

namespace {

using Run = lapis::testing::LaunchResult;

Run sh(const std::string& command) { return lapis::testing::run_user_command(command); }

constexpr const char* kTool = R"(#include <mpi.h>
#include <stdio.h>
static int sends, allreduces, agrees;
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(in, out, count, type, op, comm);
}
/* MPICH's extensions have profiling names too. */
int MPIX_Comm_agree(MPI_Comm comm, int *flag) {
  ++agrees;
  return PMPIX_Comm_agree(comm, flag);
}
int MPI_Finalize(void) {
  int rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("tool: rank %d counted %d MPI_Send, %d MPI_Allreduce, %d MPIX_Comm_agree\n", rank, sends,
         allreduces, agrees);
  return PMPI_Finalize();
}
)";

constexpr const char* kProgram = R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, v = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i) {
    if (rank == 0) MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < 2; ++i) MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int flag = rank == 0 ? 0x6 : 0x3; /* agreed: their AND */
  MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
  printf("program: rank %d sum %d last %d agreed %d\n", rank, sum, v, flag);
  return MPI_Finalize();
}
)";

}  // namespace

TEST_CASE("a tool interposes MPI_ functions and calls PMPI_") {
  using lapis::testing::runfile;
  const std::string dir = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                          "/profiling";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/tool.c") << kTool;
  std::ofstream(dir + "/program.c") << kProgram;
  const std::string include = std::filesystem::path(runfile("mpi/include/mpi.h")).parent_path();
  const std::string libmpi = runfile("mpi/shared/libmpi.so.12");
  const std::string libdir = std::filesystem::path(libmpi).parent_path();
  const Run tool = sh("cc -std=c11 -shared -fPIC -I" + include + " " + dir + "/tool.c -o " + dir +
                      "/libtool.so " + libmpi);
  REQUIRE_MESSAGE(tool.status == 0, tool.output);
  // The tool comes first on the link line, so its MPI_ functions are found first.
  const Run program = sh("cc -std=c11 -I" + include + " " + dir + "/program.c -o " + dir +
                         "/program -L" + dir + " -ltool " + libmpi);
  REQUIRE_MESSAGE(program.status == 0, program.output);
  const Run run = sh("LD_LIBRARY_PATH=" + dir + ":" + libdir + " " + runfile("runtime/lapirun") +
                     " -n 2 --timeout 60 " + dir + "/program");
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK(run.output.find("tool: rank 0 counted 3 MPI_Send, 2 MPI_Allreduce, 1 MPIX_Comm_agree") !=
        std::string::npos);
  CHECK(run.output.find("tool: rank 1 counted 0 MPI_Send, 2 MPI_Allreduce, 1 MPIX_Comm_agree") !=
        std::string::npos);
  CHECK(run.output.find("program: rank 0 sum 1 last 0 agreed 2") != std::string::npos);
  CHECK(run.output.find("program: rank 1 sum 1 last 2 agreed 2") != std::string::npos);
}
