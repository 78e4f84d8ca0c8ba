// Error class names and texts.
#include <doctest/doctest.h>

#include <string>

#include "mpi.h"
#include "mpi/internal/error_classes.hpp"

TEST_CASE("every class has a name and a text") {
  for (int c = MPI_SUCCESS; c <= MPI_ERR_LASTCODE; ++c) {
    REQUIRE(mpi::error_class_name(c) != nullptr);
    CHECK(std::string(mpi::error_class_text(c)).size() > 3);
  }
  CHECK(std::string(mpi::error_class_name(MPI_ERR_TRUNCATE)) == "MPI_ERR_TRUNCATE");
  CHECK(mpi::error_class_name(-1) == nullptr);
  CHECK(mpi::error_class_name(MPI_ERR_LASTCODE + 1) == nullptr);
}
