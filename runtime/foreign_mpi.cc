#include "runtime/foreign_mpi.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace lapis::runtime {
namespace {

template <typename T>
bool read_at(const std::string& bytes, std::size_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!read_at(bytes, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return {};
  }
  std::vector<std::string> needed;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr dynamic, strings;
    if (!read_at(bytes, eh.e_shoff + i * sizeof(Elf64_Shdr), dynamic)) return {};
    if (dynamic.sh_type != SHT_DYNAMIC) continue;
    if (!read_at(bytes, eh.e_shoff + dynamic.sh_link * sizeof(Elf64_Shdr), strings)) return {};
    for (std::size_t off = 0; off + sizeof(Elf64_Dyn) <= dynamic.sh_size; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      if (!read_at(bytes, dynamic.sh_offset + off, d) || d.d_tag == DT_NULL) break;
      if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strings.sh_size) continue;
      const std::size_t at = strings.sh_offset + d.d_un.d_val;
      if (at >= bytes.size()) continue;
      needed.emplace_back(bytes.c_str() + at, strnlen(bytes.c_str() + at, bytes.size() - at));
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
