// MPI_Info objects: create, set, get, get_valuelen, get_nkeys, get_nthkey,
// dup, delete, free, and MPI-4.0's MPI_Info_get_string and MPI_Info_create_env. MPI_INFO_ENV
// is a predefined object (read-only: it describes how the process was started). As MPI 4.0
// allows (11.2.1), they work before MPI_Init and after MPI_Finalize too: info objects live
// in the process, not in the MPI run.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

int lookup_info(MPI_Info handle, Info*& out, const char* arg = "info") {
  out = nullptr;
  if (handle == MPI_INFO_NULL) return fail(MPI_ERR_INFO, "{} is MPI_INFO_NULL", arg);
  InfoPtr* p = state().infos.find(handle);
  if (p == nullptr) return fail(MPI_ERR_INFO, "{}={:#x} is not an info object", arg, handle);
  out = p->get();
  return MPI_SUCCESS;
}

// MPI_INFO_ENV may be read, not changed or freed.
int check_writable(MPI_Info handle) {
  if (!state().infos.is_predefined(handle)) return MPI_SUCCESS;
  return fail(MPI_ERR_INFO, "info is MPI_INFO_ENV, which cannot be changed or freed");
}

int check_key(const char* key) {
  if (key == nullptr) return fail(MPI_ERR_INFO_KEY, "key is NULL");
  const std::size_t len = std::strlen(key);
  if (len == 0) return fail(MPI_ERR_INFO_KEY, "key is empty");
  if (len >= MPI_MAX_INFO_KEY) {
    return fail(MPI_ERR_INFO_KEY, "key is {} characters long, more than MPI_MAX_INFO_KEY - 1 = {}",
                len, MPI_MAX_INFO_KEY - 1);
  }
  return MPI_SUCCESS;
}

// The common head of the calls: info valid, key valid.
int info_and_key(const char* fn, MPI_Info info, const char* key, Info*& out) {
  int rc = lookup_info(info, out);
  if (rc == MPI_SUCCESS) rc = check_key(key);
  return rc == MPI_SUCCESS ? MPI_SUCCESS : raise(nullptr, fn, rc);
}

// The job's size: MPI_COMM_WORLD's once MPI_Init ran, before it the launcher's word
// (LAPIS_SIZE), 1 for a process started alone.
int job_size() {
  if (state().phase != Phase::before_init) return state().world_size;
  const char* size = std::getenv("LAPIS_SIZE");
  const int n = size != nullptr ? std::atoi(size) : 0;
  return n > 0 ? n : 1;
}

}  // namespace

extern "C" int MPI_Info_create(MPI_Info* info) {
  const ApiCall call("MPI_Info_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_create";
  if (int rc = check_not_null(info, "info")) return raise(nullptr, kFn, rc);
  return raise(nullptr, kFn, insert_info(std::make_shared<Info>(), info, "info"));
}

extern "C" int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const ApiCall call("MPI_Info_set");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_set";
  Info* i = nullptr;
  if (int rc = info_and_key(kFn, info, key, i)) return rc;
  int rc = check_writable(info);
  if (rc == MPI_SUCCESS && value == nullptr) rc = fail(MPI_ERR_INFO_VALUE, "value is NULL");
  if (rc == MPI_SUCCESS && std::strlen(value) >= MPI_MAX_INFO_VAL) {
    rc = fail(MPI_ERR_INFO_VALUE, "value is {} characters long, more than MPI_MAX_INFO_VAL - 1 = {}",
              std::strlen(value), MPI_MAX_INFO_VAL - 1);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  i->set(key, value);
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const ApiCall call("MPI_Info_get");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_get";
  Info* i = nullptr;
  if (int rc = info_and_key(kFn, info, key, i)) return rc;
  int rc = valuelen < 0 ? fail(MPI_ERR_ARG, "valuelen={} is negative", valuelen) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS) rc = check_not_null(value, "value");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const std::string* v = i->find(key);
  *flag = v != nullptr;
  if (v == nullptr) return MPI_SUCCESS;
  // At most valuelen characters, then a terminating null (value holds
  // valuelen + 1 bytes, as the standard says).
  const std::size_t n = std::min(v->size(), static_cast<std::size_t>(valuelen));
  std::memcpy(value, v->data(), n);
  value[n] = '\0';
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value,
                                   int* flag) {
  const ApiCall call("MPI_Info_get_string");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_get_string";
  Info* i = nullptr;
  if (int rc = info_and_key(kFn, info, key, i)) return rc;
  int rc = check_not_null(buflen, "buflen");
  if (rc == MPI_SUCCESS && *buflen < 0) rc = fail(MPI_ERR_ARG, "*buflen={} is negative", *buflen);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS && *buflen > 0) rc = check_not_null(value, "value");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const std::string* v = i->find(key);
  *flag = v != nullptr;
  if (v == nullptr) return MPI_SUCCESS;
  // buflen 0 asks only for the size; otherwise up to buflen - 1 characters
  // and a null. Either way *buflen becomes the size needed.
  if (*buflen > 0) {
    const std::size_t n = std::min(v->size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const ApiCall call("MPI_Info_get_valuelen");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_get_valuelen";
  Info* i = nullptr;
  if (int rc = info_and_key(kFn, info, key, i)) return rc;
  int rc = check_not_null(valuelen, "valuelen");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const std::string* v = i->find(key);
  *flag = v != nullptr;
  if (v != nullptr) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  const ApiCall call("MPI_Info_get_nkeys");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_get_nkeys";
  Info* i = nullptr;
  int rc = lookup_info(info, i);
  if (rc == MPI_SUCCESS) rc = check_not_null(nkeys, "nkeys");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *nkeys = static_cast<int>(i->entries.size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const ApiCall call("MPI_Info_get_nthkey");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_get_nthkey";
  Info* i = nullptr;
  int rc = lookup_info(info, i);
  if (rc == MPI_SUCCESS && (n < 0 || n >= static_cast<int>(i->entries.size()))) {
    rc = fail(MPI_ERR_ARG, "n={} is not below the number of keys ({})", n, i->entries.size());
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(key, "key");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const std::string& k = i->entries[static_cast<std::size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const ApiCall call("MPI_Info_dup");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_dup";
  Info* i = nullptr;
  int rc = lookup_info(info, i);
  if (rc == MPI_SUCCESS) rc = check_not_null(newinfo, "newinfo");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  return raise(nullptr, kFn, insert_info(std::make_shared<Info>(*i), newinfo, "newinfo"));
}

extern "C" int MPI_Info_delete(MPI_Info info, const char* key) {
  const ApiCall call("MPI_Info_delete");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_delete";
  Info* i = nullptr;
  if (int rc = info_and_key(kFn, info, key, i)) return rc;
  int rc = check_writable(info);
  if (rc == MPI_SUCCESS && !i->erase(key)) {
    rc = fail(MPI_ERR_INFO_NOKEY, "key \"{}\" is not in the info object", key);
  }
  return rc == MPI_SUCCESS ? MPI_SUCCESS : raise(nullptr, kFn, rc);
}

extern "C" int MPI_Info_free(MPI_Info* info) {
  const ApiCall call("MPI_Info_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_free";
  Info* i = nullptr;
  int rc = check_not_null(info, "info");
  if (rc == MPI_SUCCESS) rc = lookup_info(*info, i);
  if (rc == MPI_SUCCESS) rc = check_writable(*info);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  state().infos.erase(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  const ApiCall call("MPI_Info_create_env");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Info_create_env";
  int rc = check_not_null(info, "info");
  if (rc == MPI_SUCCESS && argc < 0) rc = fail(MPI_ERR_ARG, "argc={} is negative", argc);
  if (rc == MPI_SUCCESS && argc > 0 && argv == nullptr) rc = fail(MPI_ERR_ARG, "argv is NULL with argc={}", argc);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  return raise(nullptr, kFn, insert_info(make_start_info(job_size(), argc, argv), info, "info"));
}
