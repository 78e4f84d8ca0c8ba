/* The MPI tool information interface: MPI_T_init_thread / MPI_T_finalize
 * nesting before MPI_Init and after MPI_Finalize, the LAPIS_* control
 * variables (info, values compared with getenv, writes refused), the
 * "lapis" category, no performance variables or events, and the error
 * codes of bad indices, names and handles. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHECK_RC(call, code)                                                             \
  do {                                                                                   \
    int check_t_rc_ = (call);                                                            \
    if (check_t_rc_ != (code)) {                                                         \
      fprintf(stderr, "FAILED %s:%d: %s returned %d, expected %s (%d)\n", __FILE__,      \
              __LINE__, #call, check_t_rc_, #code, (int)(code));                         \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)

/* Reads control variable `name`; returns its value (malloc'd). */
static char* read_cvar(const char* name) {
  int index = -1, count = -1;
  CHECK_RC(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS);
  MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
  CHECK_RC(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
  CHECK(h != MPI_T_CVAR_HANDLE_NULL && count >= 1);
  char* value = malloc((size_t)count);
  CHECK_RC(MPI_T_cvar_read(h, value), MPI_SUCCESS);
  CHECK((int)strlen(value) == count - 1);
  CHECK_RC(MPI_T_cvar_write(h, "x"), MPI_T_ERR_CVAR_SET_NEVER);
  CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  CHECK(h == MPI_T_CVAR_HANDLE_NULL);
  return value;
}

static void cvars(void) {
  int n = 0;
  CHECK_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
  CHECK(n > 10);
  for (int i = 0; i < n; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum e = (MPI_T_enum)1;
    CHECK_RC(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind,
                                 &scope),
             MPI_SUCCESS);
    CHECK(strncmp(name, "LAPIS_", 6) == 0);
    CHECK(name_len == (int)strlen(name) + 1);
    CHECK(desc_len == (int)strlen(desc) + 1 && desc_len > 1);
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
    CHECK(type == MPI_CHAR);
    CHECK(e == MPI_T_ENUM_NULL);
    CHECK(bind == MPI_T_BIND_NO_OBJECT);
    CHECK(scope == MPI_T_SCOPE_READONLY || scope == MPI_T_SCOPE_CONSTANT);
    /* The length alone, then a truncated copy. */
    int len = 0;
    CHECK_RC(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == name_len);
    char small[4];
    len = sizeof small;
    CHECK_RC(MPI_T_cvar_get_info(i, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             MPI_SUCCESS);
    CHECK(len == 4 && strncmp(small, "LAP", 4) == 0);
    int back = -1;
    CHECK_RC(MPI_T_cvar_get_index(name, &back), MPI_SUCCESS);
    CHECK(back == i);
    /* Every value reads; a variable set in the environment reads as set. */
    char* value = read_cvar(name);
    const char* env = getenv(name);
    if (env) CHECK(strcmp(value, env) == 0);
    free(value);
  }
  /* Set by the test (tool_info_test passes them). */
  const char* set[] = {"LAPIS_EAGER_LIMIT", "LAPIS_MODE"};
  for (int i = 0; i < 2; ++i) {
    const char* env = getenv(set[i]);
    CHECK(env != NULL);
    char* value = read_cvar(set[i]);
    CHECK(strcmp(value, env) == 0);
    free(value);
  }
  int idx = 0, count = 0;
  MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
  CHECK_RC(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_cvar_get_index("LAPIS_NO_SUCH_VARIABLE", &idx), MPI_T_ERR_INVALID_NAME);
  CHECK_RC(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &idx), MPI_T_ERR_INVALID_HANDLE);
  CHECK_RC(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, "1"), MPI_T_ERR_INVALID_HANDLE);
  CHECK_RC(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
}

static void categories(void) {
  int n = 0, cvar_n = 0;
  CHECK_RC(MPI_T_category_get_num(&n), MPI_SUCCESS);
  CHECK(n == 1);
  CHECK_RC(MPI_T_cvar_get_num(&cvar_n), MPI_SUCCESS);
  char name[64], desc[512];
  int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, ncat = -1, ne = -1;
  CHECK_RC(MPI_T_category_get_info(0, name, &name_len, desc, &desc_len, &nc, &np, &ncat),
           MPI_SUCCESS);
  CHECK(strcmp(name, "lapis") == 0 && name_len == 6);
  CHECK(nc == cvar_n && np == 0 && ncat == 0);
  int idx = -1;
  CHECK_RC(MPI_T_category_get_index("lapis", &idx), MPI_SUCCESS);
  CHECK(idx == 0);
  CHECK_RC(MPI_T_category_get_index("mpich", &idx), MPI_T_ERR_INVALID_NAME);
  int* ids = malloc(sizeof(int) * (size_t)nc);
  for (int i = 0; i < nc; ++i) ids[i] = -1;
  CHECK_RC(MPI_T_category_get_cvars(0, nc, ids), MPI_SUCCESS);
  char* seen = calloc((size_t)nc, 1);
  for (int i = 0; i < nc; ++i) {
    CHECK(ids[i] >= 0 && ids[i] < nc && !seen[ids[i]]);
    seen[ids[i]] = 1;
  }
  free(seen);
  free(ids);
  CHECK_RC(MPI_T_category_get_num_events(0, &ne), MPI_SUCCESS);
  CHECK(ne == 0);
  int none[1] = {-5};
  CHECK_RC(MPI_T_category_get_pvars(0, 1, none), MPI_SUCCESS);
  CHECK_RC(MPI_T_category_get_categories(0, 1, none), MPI_SUCCESS);
  CHECK_RC(MPI_T_category_get_events(0, 1, none), MPI_SUCCESS);
  CHECK(none[0] == -5);
  int stamp = -1;
  CHECK_RC(MPI_T_category_changed(&stamp), MPI_SUCCESS);
  CHECK_RC(MPI_T_category_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_category_get_cvars(-1, 1, none), MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_category_get_num_events(2, &ne), MPI_T_ERR_INVALID_INDEX);
}

static void no_pvars_no_events(void) {
  int n = -1;
  CHECK_RC(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
  CHECK(n == 0);
  CHECK_RC(MPI_T_event_get_num(&n), MPI_SUCCESS);
  CHECK(n == 0);
  CHECK_RC(MPI_T_source_get_num(&n), MPI_SUCCESS);
  CHECK(n == 0);
  CHECK_RC(MPI_T_pvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL),
           MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &n), MPI_T_ERR_INVALID_NAME);
  CHECK_RC(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_event_get_index("x", &n), MPI_T_ERR_INVALID_NAME);
  MPI_T_event_registration reg = NULL;
  CHECK_RC(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  MPI_Count ts = 0;
  CHECK_RC(MPI_T_event_get_timestamp(NULL, &ts), MPI_T_ERR_INVALID_HANDLE);
  CHECK_RC(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);
  MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
  MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
  CHECK_RC(MPI_T_pvar_start(s, ph), MPI_T_ERR_INVALID_SESSION);
  CHECK_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  CHECK_RC(MPI_T_pvar_handle_alloc(s, 0, NULL, &ph, &n), MPI_T_ERR_INVALID_INDEX);
  CHECK_RC(MPI_T_pvar_read(s, ph, &n), MPI_T_ERR_INVALID_HANDLE);
  CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  CHECK_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  CHECK(s == MPI_T_PVAR_SESSION_NULL);
  CHECK_RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char** argv) {
  int provided = -1, n = 0;
  /* Not initialized yet. */
  CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  /* Nested, before MPI_Init. */
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_SINGLE);
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_MULTIPLE);
  cvars();
  CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
  CHECK_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one level still open */
  CHECK(n > 0);
  CHECK_OK(MPI_Init(&argc, &argv));
  categories();
  no_pvars_no_events();
  CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
  CHECK_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_OK(MPI_Finalize());
  /* And after MPI_Finalize. */
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided), MPI_SUCCESS);
  cvars();
  CHECK_RC(MPI_T_finalize(), MPI_SUCCESS);
  printf("OK\n");
  return 0;
}
