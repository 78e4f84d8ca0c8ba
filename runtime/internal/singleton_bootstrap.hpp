#pragma once
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/bootstrap.hpp"

namespace lapis::runtime::internal {

// A job of one rank started without any launcher: every collective is local.
class SingletonBootstrap final : public Bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void barrier() override {}
  std::string_view kind() const override { return "singleton"; }
};

}  // namespace lapis::runtime::internal
