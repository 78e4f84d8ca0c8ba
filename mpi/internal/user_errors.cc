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

}  // namespace mpi
