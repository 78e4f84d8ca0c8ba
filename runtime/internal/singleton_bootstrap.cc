#include "runtime/internal/singleton_bootstrap.hpp"

namespace lapis::runtime::internal {

std::vector<std::vector<std::byte>> SingletonBootstrap::allgather(std::span<const std::byte> mine) {
  return {std::vector<std::byte>(mine.begin(), mine.end())};
}

}  // namespace lapis::runtime::internal
