#include "tests/fuzz/replay.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

namespace lapis::fuzz {

namespace {

bool run_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // A copy of exactly the input's size, as libFuzzer passes it, so that
  // AddressSanitizer sees a read past the end.
  std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
  exact.shrink_to_fit();
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  return true;
}

}  // namespace

long replay(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return run_file(path) ? 1 : -1;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  if (ec) return -1;
  std::sort(files.begin(), files.end());  // a stable order, for reproducible runs
  long ran = 0;
  for (const auto& file : files) {
    if (!run_file(file)) return -1;
    ++ran;
  }
  return ran;
}

}  // namespace lapis::fuzz
