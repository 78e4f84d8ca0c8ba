// The MPI tool information interface (MPI_T_*, MPI 4.0 chapter 15).
//
// What Lapis exposes: every LAPIS_* variable of its registry
// (lapi/variables.hpp) as a read-only control variable — datatype MPI_CHAR,
// its value the environment's setting or, when unset, the registry's default
// text, read when the handle is allocated; scope MPI_T_SCOPE_READONLY (each
// layer reads it when it starts), bound to no object — and one category,
// "lapis", holding them all. No performance variables, no events, no event
// sources: their counts are 0, their indices MPI_T_ERR_INVALID_INDEX, their
// handles MPI_T_ERR_INVALID_HANDLE.
//
// The interface works before MPI_Init and after MPI_Finalize: it needs only
// MPI_T_init_thread, which nests (a count; MPI_T_finalize undoes one).
// MPI_T calls return their error codes and never call an error handler.
// Each opens with an ApiCall, so calls are serialised with the rest of MPI
// (under MPI_THREAD_MULTIPLE) or an overlapping one is refused
// (MPI_ERR_OTHER).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "lapi/variables.hpp"
#include "mpi.h"
#include "mpi/internal/api_call.hpp"

using namespace mpi;

struct MPIR_T_cvar_handle_s {
  int index;
  std::string value;  // read at allocation
};
struct MPIR_T_pvar_session_s {
  int unused;
};

// MPICH's header makes programs reference it; with no performance
// variables no handle is ever allocated.
extern "C" {
struct MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES =
    reinterpret_cast<MPIR_T_pvar_handle_s*>(static_cast<std::uintptr_t>(-1));
}

namespace {

constexpr std::string_view kCategory = "lapis";
constexpr std::string_view kCategoryDesc =
    "Lapis' LAPIS_* settings (core, MPI engine, MPI, launcher, tools), read from the environment";

// Interface state: every access is inside an ApiCall.
int g_init_count = 0;  // MPI_T_init_thread calls not yet finalized
std::set<MPIR_T_cvar_handle_s*> g_cvar_handles;
std::set<MPIR_T_pvar_session_s*> g_sessions;

std::span<const lapi::Variable> cvars() { return lapi::variables(); }
int cvar_count() { return static_cast<int>(cvars().size()); }

// The MPI_T string convention: with no buffer or *len == 0 only the length
// (terminator included) is returned; else at most *len - 1 characters and
// a terminator are written and *len is what was written.
void put_string(std::string_view s, char* buf, int* len) {
  if (len == nullptr) return;
  if (buf == nullptr || *len <= 0) {
    *len = static_cast<int>(s.size()) + 1;
    return;
  }
  const std::size_t n = std::min(s.size(), static_cast<std::size_t>(*len - 1));
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
  *len = static_cast<int>(n) + 1;
}

std::string cvar_desc(const lapi::Variable& v) {
  std::string d(v.doc);
  d += " (layer: ";
  d += v.layer;
  d += "; default: ";
  d += v.default_value;
  d += ")";
  return d;
}

std::string cvar_value(const lapi::Variable& v) {
  const std::string name(v.name);
  if (const char* set = std::getenv(name.c_str())) return set;
  return std::string(v.default_value);
}

int ready() { return g_init_count > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED; }

int put_count(int* out, int n) {
  if (int rc = ready()) return rc;
  if (out == nullptr) return MPI_ERR_ARG;
  *out = n;
  return MPI_SUCCESS;
}

// A call on an event registration or an event instance: none exists.
int no_event_handle() {
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_HANDLE;
}

bool valid_session(MPI_T_pvar_session s) { return g_sessions.contains(s); }

// A performance-variable handle call: no handle is ever valid.
int pvar_handle_call(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_ok) {
  if (int rc = ready()) return rc;
  if (!valid_session(session)) return MPI_T_ERR_INVALID_SESSION;
  if (all_ok && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;  // none to act on
  return MPI_T_ERR_INVALID_HANDLE;
}

}  // namespace

// ---- set-up

extern "C" int MPI_T_init_thread(int required, int* provided) {
  const ApiCall call("MPI_T_init_thread");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (provided == nullptr) return MPI_ERR_ARG;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  ++g_init_count;
  *provided = required;  // every level is provided (the calls serialise through ApiCall)
  return MPI_SUCCESS;
}

extern "C" int MPI_T_finalize(void) {
  const ApiCall call("MPI_T_finalize");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (--g_init_count == 0) {
    for (MPIR_T_cvar_handle_s* h : g_cvar_handles) delete h;
    g_cvar_handles.clear();
    for (MPIR_T_pvar_session_s* s : g_sessions) delete s;
    g_sessions.clear();
  }
  return MPI_SUCCESS;
}

// ---- enumerations: none exist

extern "C" int MPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  const ApiCall call("MPI_T_enum_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)enumtype, (void)num, (void)name, (void)name_len;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_HANDLE;
}

extern "C" int MPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name,
                                   int* name_len) {
  const ApiCall call("MPI_T_enum_get_item");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)enumtype, (void)indx, (void)value, (void)name, (void)name_len;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_HANDLE;
}

// ---- control variables: the LAPIS_* registry

extern "C" int MPI_T_cvar_get_num(int* num_cvar) {
  const ApiCall call("MPI_T_cvar_get_num");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(num_cvar, cvar_count());
}

extern "C" int MPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                                   MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc,
                                   int* desc_len, int* bind, int* scope) {
  const ApiCall call("MPI_T_cvar_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (cvar_index < 0 || cvar_index >= cvar_count()) return MPI_T_ERR_INVALID_INDEX;
  const lapi::Variable& v = cvars()[static_cast<std::size_t>(cvar_index)];
  put_string(v.name, name, name_len);
  put_string(cvar_desc(v), desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (datatype) *datatype = MPI_CHAR;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_READONLY;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_cvar_get_index(const char* name, int* cvar_index) {
  const ApiCall call("MPI_T_cvar_get_index");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (name == nullptr || cvar_index == nullptr) return MPI_ERR_ARG;
  const auto all = cvars();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) {
      *cvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

extern "C" int MPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle,
                                       int* count) {
  const ApiCall call("MPI_T_cvar_handle_alloc");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)obj_handle;  // MPI_T_BIND_NO_OBJECT: ignored
  if (int rc = ready()) return rc;
  if (cvar_index < 0 || cvar_index >= cvar_count()) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
  auto h = std::make_unique<MPIR_T_cvar_handle_s>();
  h->index = cvar_index;
  h->value = cvar_value(cvars()[static_cast<std::size_t>(cvar_index)]);
  *count = static_cast<int>(h->value.size()) + 1;  // MPI_CHARs, terminator included
  *handle = h.get();
  g_cvar_handles.insert(h.release());
  return MPI_SUCCESS;
}

extern "C" int MPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  const ApiCall call("MPI_T_cvar_handle_free");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (handle == nullptr) return MPI_ERR_ARG;
  if (g_cvar_handles.erase(*handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  const ApiCall call("MPI_T_cvar_read");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (!g_cvar_handles.contains(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  std::memcpy(buf, handle->value.c_str(), handle->value.size() + 1);
  return MPI_SUCCESS;
}

extern "C" int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  const ApiCall call("MPI_T_cvar_write");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)buf;
  if (int rc = ready()) return rc;
  if (!g_cvar_handles.contains(handle)) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_T_ERR_CVAR_SET_NEVER;  // every one is read-only
}

// ---- performance variables: none

extern "C" int MPI_T_pvar_get_num(int* num_pvar) {
  const ApiCall call("MPI_T_pvar_get_num");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(num_pvar, 0);
}

extern "C" int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity,
                                   int* var_class, MPI_Datatype* datatype, MPI_T_enum* enumtype,
                                   char* desc, int* desc_len, int* bind, int* readonly,
                                   int* continuous, int* atomic) {
  const ApiCall call("MPI_T_pvar_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)pvar_index, (void)name, (void)name_len, (void)verbosity, (void)var_class, (void)datatype;
  (void)enumtype, (void)desc, (void)desc_len, (void)bind, (void)readonly, (void)continuous;
  (void)atomic;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

extern "C" int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  const ApiCall call("MPI_T_pvar_get_index");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)var_class;
  if (int rc = ready()) return rc;
  if (name == nullptr || pvar_index == nullptr) return MPI_ERR_ARG;
  return MPI_T_ERR_INVALID_NAME;
}

extern "C" int MPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  const ApiCall call("MPI_T_pvar_session_create");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (session == nullptr) return MPI_ERR_ARG;
  *session = new MPIR_T_pvar_session_s{0};  // a session with no variables to bind
  g_sessions.insert(*session);
  return MPI_SUCCESS;
}

extern "C" int MPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  const ApiCall call("MPI_T_pvar_session_free");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (session == nullptr) return MPI_ERR_ARG;
  if (g_sessions.erase(*session) == 0) return MPI_T_ERR_INVALID_SESSION;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                                       void* obj_handle, MPI_T_pvar_handle* handle, int* count) {
  const ApiCall call("MPI_T_pvar_handle_alloc");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)pvar_index, (void)obj_handle, (void)handle, (void)count;
  if (int rc = ready()) return rc;
  if (!valid_session(session)) return MPI_T_ERR_INVALID_SESSION;
  return MPI_T_ERR_INVALID_INDEX;
}

extern "C" int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  const ApiCall call("MPI_T_pvar_handle_free");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (handle == nullptr) return ready() ? ready() : MPI_ERR_ARG;
  return pvar_handle_call(session, *handle, false);
}

extern "C" int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const ApiCall call("MPI_T_pvar_start");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return pvar_handle_call(session, handle, true);
}

extern "C" int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const ApiCall call("MPI_T_pvar_stop");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return pvar_handle_call(session, handle, true);
}

extern "C" int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  const ApiCall call("MPI_T_pvar_read");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)buf;
  return pvar_handle_call(session, handle, false);
}

extern "C" int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                const void* buf) {
  const ApiCall call("MPI_T_pvar_write");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)buf;
  return pvar_handle_call(session, handle, false);
}

extern "C" int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  const ApiCall call("MPI_T_pvar_reset");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return pvar_handle_call(session, handle, true);
}

extern "C" int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                                    void* buf) {
  const ApiCall call("MPI_T_pvar_readreset");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)buf;
  return pvar_handle_call(session, handle, false);
}

// ---- categories: one, "lapis", of every control variable

extern "C" int MPI_T_category_get_num(int* num_cat) {
  const ApiCall call("MPI_T_category_get_num");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(num_cat, 1);
}

extern "C" int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc,
                                       int* desc_len, int* num_cvars, int* num_pvars,
                                       int* num_categories) {
  const ApiCall call("MPI_T_category_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  put_string(kCategory, name, name_len);
  put_string(kCategoryDesc, desc, desc_len);
  if (num_cvars) *num_cvars = cvar_count();
  if (num_pvars) *num_pvars = 0;
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_category_get_num_events(int cat_index, int* num_events) {
  const ApiCall call("MPI_T_category_get_num_events");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (num_events == nullptr) return MPI_ERR_ARG;
  *num_events = 0;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_category_get_index(const char* name, int* cat_index) {
  const ApiCall call("MPI_T_category_get_index");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (name == nullptr || cat_index == nullptr) return MPI_ERR_ARG;
  if (kCategory != name) return MPI_T_ERR_INVALID_NAME;
  *cat_index = 0;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  const ApiCall call("MPI_T_category_get_cvars");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_ERR_ARG;
  for (int i = 0; i < std::min(len, cvar_count()); ++i) indices[i] = i;
  return MPI_SUCCESS;
}

extern "C" int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  const ApiCall call("MPI_T_category_get_pvars");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)indices;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  return len < 0 ? MPI_ERR_ARG : MPI_SUCCESS;  // none to write
}

extern "C" int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  const ApiCall call("MPI_T_category_get_categories");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)indices;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  return len < 0 ? MPI_ERR_ARG : MPI_SUCCESS;  // none to write
}

extern "C" int MPI_T_category_get_events(int cat_index, int len, int indices[]) {
  const ApiCall call("MPI_T_category_get_events");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)indices;
  if (int rc = ready()) return rc;
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  return len < 0 ? MPI_ERR_ARG : MPI_SUCCESS;  // none to write
}

extern "C" int MPI_T_category_changed(int* update_number) {
  const ApiCall call("MPI_T_category_changed");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(update_number, 0);  // the categories never change
}

// ---- events and event sources: none

extern "C" int MPI_T_source_get_num(int* num_sources) {
  const ApiCall call("MPI_T_source_get_num");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(num_sources, 0);
}

extern "C" int MPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc,
                                     int* desc_len, MPI_T_source_order* ordering,
                                     MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                                     MPI_Info* info) {
  const ApiCall call("MPI_T_source_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len, (void)ordering;
  (void)ticks_per_second, (void)max_ticks, (void)info;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

extern "C" int MPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  const ApiCall call("MPI_T_source_get_timestamp");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)source_index, (void)timestamp;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

extern "C" int MPI_T_event_get_num(int* num_events) {
  const ApiCall call("MPI_T_event_get_num");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  return put_count(num_events, 0);
}

extern "C" int MPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                                    MPI_Datatype array_of_datatypes[],
                                    MPI_Aint array_of_displacements[], int* num_elements,
                                    MPI_T_enum* enumtype, MPI_Info* info, char* desc,
                                    int* desc_len, int* bind) {
  const ApiCall call("MPI_T_event_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
  (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
  (void)desc_len, (void)bind;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

extern "C" int MPI_T_event_get_index(const char* name, int* event_index) {
  const ApiCall call("MPI_T_event_get_index");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  if (int rc = ready()) return rc;
  if (name == nullptr || event_index == nullptr) return MPI_ERR_ARG;
  return MPI_T_ERR_INVALID_NAME;
}

extern "C" int MPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                                        MPI_T_event_registration* event_registration) {
  const ApiCall call("MPI_T_event_handle_alloc");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
  if (int rc = ready()) return rc;
  return MPI_T_ERR_INVALID_INDEX;
}

// Registrations and event instances: none exists.

extern "C" int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data, MPI_T_event_free_cb_function free_cb_function) {
  const ApiCall call("MPI_T_event_handle_free");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)user_data, (void)free_cb_function;
  return no_event_handle();
}

extern "C" int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info* info_used) {
  const ApiCall call("MPI_T_event_handle_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)info_used;
  return no_event_handle();
}

extern "C" int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
  const ApiCall call("MPI_T_event_handle_set_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)info;
  return no_event_handle();
}

extern "C" int MPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info, void* user_data, MPI_T_event_cb_function event_cb_function) {
  const ApiCall call("MPI_T_event_register_callback");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
  return no_event_handle();
}

extern "C" int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info* info_used) {
  const ApiCall call("MPI_T_event_callback_get_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)cb_safety, (void)info_used;
  return no_event_handle();
}

extern "C" int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info) {
  const ApiCall call("MPI_T_event_callback_set_info");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)cb_safety, (void)info;
  return no_event_handle();
}

extern "C" int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration, MPI_T_event_dropped_cb_function dropped_cb_function) {
  const ApiCall call("MPI_T_event_set_dropped_handler");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_registration, (void)dropped_cb_function;
  return no_event_handle();
}

extern "C" int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  const ApiCall call("MPI_T_event_read");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_instance, (void)element_index, (void)buffer;
  return no_event_handle();
}

extern "C" int MPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  const ApiCall call("MPI_T_event_copy");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_instance, (void)buffer;
  return no_event_handle();
}

extern "C" int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  const ApiCall call("MPI_T_event_get_timestamp");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_instance, (void)event_timestamp;
  return no_event_handle();
}

extern "C" int MPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  const ApiCall call("MPI_T_event_get_source");
  if (call.overlaps()) [[unlikely]] return MPI_ERR_OTHER;
  (void)event_instance, (void)source_index;
  return no_event_handle();
}
