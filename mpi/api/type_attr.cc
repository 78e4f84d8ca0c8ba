// Attributes on datatypes (MPI_Type_create_keyval / free_keyval / set_attr
// / get_attr / delete_attr) and window keyvals (MPI_Win_create_keyval /
// free_keyval: windows themselves come with RMA).
#include <map>

#include "mpi.h"
#include "mpi/internal/attr_value.hpp"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/type_attributes.hpp"

using namespace mpi;

namespace {

// Datatype handles are ints like communicators': the callbacks have the
// communicator callbacks' shape.
struct TypeKeyval : AttrCallbacks {
  bool freed = false;  // no new values; callbacks of existing ones still run
};

std::map<int, TypeKeyval> g_type_keyvals;
// datatype handle -> keyval -> value
std::map<MPI_Datatype, std::map<int, AttrValue>> g_type_values;

int find_type_keyval(int keyval, TypeKeyval*& out, bool for_new_value) {
  auto it = g_type_keyvals.find(keyval);
  if (it == g_type_keyvals.end()) {
    return fail(MPI_ERR_KEYVAL, "keyval={} is not a datatype keyval (MPI_Type_create_keyval)",
                keyval);
  }
  if (for_new_value && it->second.freed) {
    return fail(MPI_ERR_KEYVAL, "keyval={} was freed", keyval);
  }
  out = &it->second;
  return MPI_SUCCESS;
}

int run_delete(MPI_Datatype type, int keyval, const AttrValue& value) {
  auto kv = g_type_keyvals.find(keyval);
  if (kv == g_type_keyvals.end()) return MPI_SUCCESS;
  return kv->second.run_delete(type, keyval, value);
}

}  // namespace

namespace mpi {

int copy_type_attributes(MPI_Datatype from, MPI_Datatype to) {
  auto it = g_type_values.find(from);
  if (it == g_type_values.end()) return MPI_SUCCESS;
  const std::map<int, AttrValue> values = it->second;  // callbacks may add to the table
  for (const auto& [key, value] : values) {
    auto kv = g_type_keyvals.find(key);
    if (kv == g_type_keyvals.end() || kv->second.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    if (int rc = kv->second.run_copy(from, key, value, &out, &flag)) return rc;
    if (flag) g_type_values[to][key] = AttrValue(out, value.set_by);  // the copy keeps its kind
  }
  return MPI_SUCCESS;
}

int release_type(MPI_Datatype* handle) {
  const int rc = delete_type_attributes(*handle);
  state().types.erase(*handle);
  *handle = MPI_DATATYPE_NULL;
  return rc;
}

int delete_type_attributes(MPI_Datatype type) {
  auto it = g_type_values.find(type);
  if (it == g_type_values.end()) return MPI_SUCCESS;
  std::map<int, AttrValue> values = std::move(it->second);
  g_type_values.erase(it);
  int first = MPI_SUCCESS;
  for (const auto& [key, value] : values) {
    int rc = run_delete(type, key, value);
    if (first == MPI_SUCCESS) first = rc;
  }
  return first;
}

AttrCallbacks* type_keyval_callbacks(int keyval) {
  auto it = g_type_keyvals.find(keyval);
  return it == g_type_keyvals.end() ? nullptr : &it->second;
}

}  // namespace mpi

extern "C" int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                      MPI_Type_delete_attr_function* type_delete_attr_fn,
                                      int* type_keyval, void* extra_state) {
  const ApiCall call("MPI_Type_create_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_keyval";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(type_keyval, "type_keyval")) return raise(nullptr, kFn, rc);
  int k = state().next_keyval++;
  TypeKeyval& kv = g_type_keyvals[k];
  kv.copy = reinterpret_cast<MPI_Comm_copy_attr_function*>(type_copy_attr_fn);
  kv.del = reinterpret_cast<MPI_Comm_delete_attr_function*>(type_delete_attr_fn);
  kv.extra_state = extra_state;
  *type_keyval = k;
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_free_keyval(int* type_keyval) {
  const ApiCall call("MPI_Type_free_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_free_keyval";
  if (int rc = check_running(kFn)) return rc;
  TypeKeyval* kv = nullptr;
  int rc = check_not_null(type_keyval, "type_keyval");
  // A keyval freed already, through another copy of its number, may be freed again while
  // values still hold it, as for communicators (MPICH's keyval_double_free_type).
  if (rc == MPI_SUCCESS) rc = find_type_keyval(*type_keyval, kv, false);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  kv->freed = true;
  *type_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

namespace {

int set_attr(MPI_Datatype datatype, int type_keyval, AttrValue value) {
  constexpr const char* kFn = "MPI_Type_set_attr";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  TypeKeyval* kv = nullptr;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = find_type_keyval(type_keyval, kv, true);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  auto& values = g_type_values[datatype];
  auto it = values.find(type_keyval);
  if (it != values.end()) {  // the old value is deleted first
    if (int rc2 = run_delete(datatype, type_keyval, it->second)) return raise(nullptr, kFn, rc2);
  }
  g_type_values[datatype][type_keyval] = value;
  return MPI_SUCCESS;
}

int get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag, AttrLang reader) {
  constexpr const char* kFn = "MPI_Type_get_attr";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  TypeKeyval* kv = nullptr;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = find_type_keyval(type_keyval, kv, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(attribute_val, "attribute_val");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *flag = 0;
  auto it = g_type_values.find(datatype);
  if (it == g_type_values.end()) return MPI_SUCCESS;
  auto v = it->second.find(type_keyval);
  if (v == it->second.end()) return MPI_SUCCESS;
  *static_cast<void**>(attribute_val) = v->second.read_by(reader);
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const ApiCall call("MPI_Type_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr(datatype, type_keyval, AttrValue(attribute_val, AttrLang::c));
}

extern "C" int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                 int* flag) {
  const ApiCall call("MPI_Type_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr(datatype, type_keyval, attribute_val, flag, AttrLang::c);
}

// The Fortran bindings' (fortran_support.h): the value is Fortran's integer.
extern "C" int lapis_f_type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const ApiCall call("MPI_Type_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr(datatype, type_keyval, AttrValue(attribute_val, AttrLang::fortran));
}

extern "C" int lapis_f_type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Type_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr(datatype, type_keyval, attribute_val, flag, AttrLang::fortran);
}

extern "C" int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const ApiCall call("MPI_Type_delete_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_delete_attr";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  TypeKeyval* kv = nullptr;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = find_type_keyval(type_keyval, kv, false);
  std::map<int, AttrValue>* values = nullptr;
  if (rc == MPI_SUCCESS) {
    auto it = g_type_values.find(datatype);
    if (it != g_type_values.end() && it->second.count(type_keyval)) values = &it->second;
    if (values == nullptr) {
      rc = fail(MPI_ERR_KEYVAL, "datatype has no value for keyval={}", type_keyval);
    }
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // A delete callback that fails keeps the attribute (as for communicators), so that its
  // copy and delete callbacks still run with the datatype.
  rc = run_delete(datatype, type_keyval, (*values)[type_keyval]);
  if (rc == MPI_SUCCESS) values->erase(type_keyval);
  return raise(nullptr, kFn, rc);
}

// The profiling interface's hook for tools (any level, any extra
// arguments, any time): nothing to do in the library itself.
extern "C" int MPI_Pcontrol(const int level, ...) {
  const ApiCall call("MPI_Pcontrol");
  (void)level;
  return MPI_SUCCESS;
}
