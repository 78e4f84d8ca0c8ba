#pragma once
// A benchmark that hits a transport or library error cannot produce a number:
// it throws BenchError, main() prints the message and exits non-zero.

#include <stdexcept>

namespace lapis::benchmarks {

struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace lapis::benchmarks
