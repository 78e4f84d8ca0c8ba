// Error class names and texts.
#include <doctest/doctest.h>

#include <string>

#include "mpi.h"
#include "mpi/internal/error_classes.hpp"

TEST_CASE("every class has a name and a text") {
  int classes = 0;
  for (int c = MPI_SUCCESS; c <= MPICH_ERR_LAST_CLASS; ++c) {
    CAPTURE(c);
    // MPICH's numbering leaves 54 unused.
    if (c == 54) {
      CHECK(mpi::error_class_name(c) == nullptr);
      continue;
    }
    REQUIRE(mpi::error_class_name(c) != nullptr);
    CHECK(std::string(mpi::error_class_text(c)).size() > 3);
    ++classes;
  }
  CHECK(classes == 80);  // MPI 4.1: MPI_T_ERR_NOT_ACCESSIBLE, MPI_ERR_ERRHANDLER
  CHECK(std::string(mpi::error_class_name(MPI_ERR_ERRHANDLER)) == "MPI_ERR_ERRHANDLER");
  CHECK(std::string(mpi::error_class_name(MPI_ERR_TRUNCATE)) == "MPI_ERR_TRUNCATE");
  CHECK(std::string(mpi::error_class_name(MPI_ERR_REQUEST)) == "MPI_ERR_REQUEST");
  CHECK(std::string(mpi::error_class_name(MPI_ERR_RMA_FLAVOR)) == "MPI_ERR_RMA_FLAVOR");
  CHECK(std::string(mpi::error_class_name(MPI_T_ERR_NOT_SUPPORTED)) == "MPI_T_ERR_NOT_SUPPORTED");
  CHECK(mpi::error_class_name(-1) == nullptr);
  CHECK(mpi::error_class_name(MPICH_ERR_LAST_CLASS + 1) == nullptr);
  CHECK(mpi::error_class_name(MPI_ERR_LASTCODE) == nullptr);
  // The ULFM classes at MPICH's values, and nothing between them and MPI's.
  CHECK(std::string(mpi::error_class_name(MPIX_ERR_PROC_FAILED)) == "MPIX_ERR_PROC_FAILED");
  CHECK(std::string(mpi::error_class_name(MPIX_ERR_REVOKED)) == "MPIX_ERR_REVOKED");
  CHECK(std::string(mpi::error_class_name(MPICH_ERR_LAST_MPIX)) == "MPIX_ERR_NOREQ");
  CHECK(mpi::error_class_name(MPICH_ERR_FIRST_MPIX) == nullptr);
  CHECK(mpi::error_class_name(MPICH_ERR_LAST_MPIX + 1) == nullptr);
}
