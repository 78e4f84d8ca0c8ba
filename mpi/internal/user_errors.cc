#include "mpi/internal/user_errors.hpp"

#include <map>

#include "mpi.h"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

struct UserCode {
  int cls;
  std::string text;
};
// code -> class and string (a class maps to itself).
std::map<int, UserCode> g_codes;

int next_number() {
  int n = state().attr_lastusedcode + 1;
  state().attr_lastusedcode = n;
  return n;
}

}  // namespace

int add_user_class() {
  int cls = next_number();
  g_codes[cls] = {cls, {}};
  return cls;
}

bool add_user_code(int cls, int& code) {
  if (cls <= MPICH_ERR_LAST_CLASS) {
    if (cls < MPI_SUCCESS) return false;
  } else {
    auto it = g_codes.find(cls);
    if (it == g_codes.end() || it->second.cls != cls) return false;
  }
  code = next_number();
  g_codes[code] = {cls, {}};
  return true;
}

bool is_user_code(int code) { return g_codes.count(code) != 0; }

int user_code_class(int code) { return g_codes.at(code).cls; }

const std::string& user_code_string(int code) { return g_codes.at(code).text; }

void set_user_code_string(int code, std::string text) { g_codes.at(code).text = std::move(text); }

const char* remove_user_class(int cls) {
  auto it = g_codes.find(cls);
  if (it == g_codes.end() || it->second.cls != cls) {
    return "is not an error class added by MPI_Add_error_class";
  }
  for (const auto& [code, entry] : g_codes) {
    if (entry.cls == cls && code != cls) return "still has error codes (remove them first)";
  }
  g_codes.erase(it);
  return nullptr;
}

const char* remove_user_code(int code) {
  auto it = g_codes.find(code);
  if (it == g_codes.end()) return "is not an error code added by MPI_Add_error_code";
  if (it->second.cls == code) return "is an error class (MPI_Remove_error_class removes it)";
  g_codes.erase(it);
  return nullptr;
}

const char* remove_user_string(int code) {
  auto it = g_codes.find(code);
  if (it == g_codes.end()) {
    return "was not added by MPI_Add_error_class/_code (predefined strings stay)";
  }
  it->second.text.clear();
  return nullptr;
}

}  // namespace mpi
