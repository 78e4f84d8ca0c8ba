#include "lapi/c_api/handler_registry.hpp"

#include <dlfcn.h>
#include <link.h>

#include <string_view>

namespace lapi::c_api {
namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

ModuleRef compute_module_ref(const void* addr) {
  Dl_info info{};
  if (dladdr(addr, &info) == 0 || info.dli_fbase == nullptr) return {};
  // The main program's path is the same in every task of one job (same argv).
  std::string_view path = info.dli_fname ? info.dli_fname : "";
  std::uint64_t module = fnv1a(path) | 1;  // never 0: 0 means "no module"
  auto offset = reinterpret_cast<std::uintptr_t>(addr) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  return {module, offset};
}

struct CodeSearch {
  std::uintptr_t addr;
  bool found;
};

int find_code_segment(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<CodeSearch*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (search->addr >= begin && search->addr < begin + ph.p_memsz) {
      search->found = true;
      return 1;
    }
  }
  return 0;
}

}  // namespace

ModuleRef module_ref(const void* addr) {
  static std::mutex mu;  // guards cache
  static std::unordered_map<const void*, ModuleRef> cache;
  std::lock_guard lock(mu);
  auto [it, inserted] = cache.try_emplace(addr);
  if (inserted) it->second = compute_module_ref(addr);
  return it->second;
}

bool is_code_address(const void* addr) {
  CodeSearch search{reinterpret_cast<std::uintptr_t>(addr), false};
  dl_iterate_phdr(find_code_segment, &search);
  return search.found;
}

void HandlerRegistry::publish(hdr_hndlr_t* fn) {
  auto addr = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(fn));
  ModuleRef ref = module_ref(reinterpret_cast<const void*>(fn));
  std::lock_guard lock(mu_);
  by_addr_[addr] = fn;
  if (ref.module != 0) by_module_[ref] = fn;
}

hdr_hndlr_t* HandlerRegistry::resolve(std::uint64_t addr, ModuleRef ref) const {
  std::lock_guard lock(mu_);
  if (auto it = by_addr_.find(addr); it != by_addr_.end()) return it->second;
  if (ref.module == 0) return nullptr;
  auto it = by_module_.find(ref);
  return it == by_module_.end() ? nullptr : it->second;
}

}  // namespace lapi::c_api
