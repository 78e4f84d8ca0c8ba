#include "runtime/foreign_mpi.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace lapis::runtime {
namespace {

// Reads only the pieces it is asked for: a sanitizer build's program is
// over 100 MB, and reading all of it cost every launch seconds.
class ElfReader {
 public:
  explicit ElfReader(const std::string& path) : in_(path, std::ios::binary) {}

  template <typename T>
  bool read_at(std::uint64_t offset, T& out) {
    return read_bytes(offset, reinterpret_cast<char*>(&out), sizeof(T)) == sizeof(T);
  }

  // The NUL-terminated string at `offset`, at most `limit` bytes long.
  std::string string_at(std::uint64_t offset, std::uint64_t limit) {
    std::string text(std::min<std::uint64_t>(limit, kLongestName), '\0');
    text.resize(read_bytes(offset, text.data(), text.size()));
    text.resize(strnlen(text.c_str(), text.size()));
    return text;
  }

 private:
  static constexpr std::uint64_t kLongestName = 4096;

  std::size_t read_bytes(std::uint64_t offset, char* out, std::size_t size) {
    in_.clear();
    if (!in_.seekg(static_cast<std::streamoff>(offset))) return 0;
    in_.read(out, static_cast<std::streamsize>(size));
    return static_cast<std::size_t>(in_.gcount());
  }

  std::ifstream in_;
};

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  ElfReader elf(path);
  Elf64_Ehdr eh;
  if (!elf.read_at(0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return {};
  }
  std::vector<std::string> needed;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr dynamic, strings;
    if (!elf.read_at(eh.e_shoff + i * sizeof(Elf64_Shdr), dynamic)) return {};
    if (dynamic.sh_type != SHT_DYNAMIC) continue;
    if (!elf.read_at(eh.e_shoff + dynamic.sh_link * sizeof(Elf64_Shdr), strings)) return {};
    for (std::uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dynamic.sh_size; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      if (!elf.read_at(dynamic.sh_offset + off, d) || d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strings.sh_size) continue;
      std::string name = elf.string_at(strings.sh_offset + d.d_un.d_val, strings.sh_size - d.d_un.d_val);
      if (!name.empty()) needed.push_back(std::move(name));
    }
  }
  return needed;
}

std::optional<std::string> foreign_mpi(const std::string& path) {
  for (const std::string& lib : needed_libraries(path)) {
    if (lib.rfind("libmpi.so.40", 0) == 0 || lib.rfind("libopen-rte", 0) == 0 ||
        lib.rfind("libmpi_mpifh.so", 0) == 0) {
      return path + " was built against Open MPI (it needs " + lib +
             "): rebuild it with Lapis' mpicc/mpifort, or start it with Open MPI's mpirun";
    }
  }
  return std::nullopt;
}

}  // namespace lapis::runtime
