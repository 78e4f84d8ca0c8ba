// The C API on one task (no launcher: the singleton bootstrap): every bad
// argument or handle gets its LAPI code and a message naming it.

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>

#include "lapi/lapi.h"
#include "tests/c_api/bad_enums.h"

namespace {

std::string message(int code) {
  char buf[LAPI_MAX_ERR_STRING];
  std::memset(buf, 'x', sizeof buf);
  LAPI_Msg_string(code, buf);
  return std::string(buf, strnlen(buf, sizeof buf));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The code a call returned, and Msg_string's text for it right afterwards.
struct Failure {
  int code;
  std::string text;
};
Failure failure(int code) { return {code, message(code)}; }

class Handle {
 public:
  explicit Handle(unsigned protocol = 0) {
    lapi_info_t info;
    std::memset(&info, 0, sizeof info);
    info.protocol = protocol;
    REQUIRE(LAPI_Init(&h_, &info) == LAPI_SUCCESS);
  }
  ~Handle() {
    if (h_ != 0) static_cast<void>(LAPI_Term(h_));
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  lapi_handle_t get() const { return h_; }
  int term() {
    int rc = LAPI_Term(h_);
    h_ = 0;
    return rc;
  }

 private:
  lapi_handle_t h_ = 0;
};

lapi_info_t zeroed_info() {
  lapi_info_t info;
  std::memset(&info, 0, sizeof info);
  return info;
}

}  // namespace

TEST_CASE("Msg_string works before Init and stays within LAPI_MAX_ERR_STRING") {
  CHECK(contains(message(LAPI_ERR_TGT), "LAPI_ERR_TGT (428)"));
  CHECK(contains(message(LAPI_SUCCESS), "LAPI_SUCCESS"));

  char buf[LAPI_MAX_ERR_STRING];
  CHECK(LAPI_Msg_string(9999, buf) == LAPI_ERR_CODE_UNKNOWN);
  CHECK(contains(buf, "9999"));
  CHECK(LAPI_Msg_string(LAPI_ERR_TGT, nullptr) == LAPI_ERR_RET_PTR_NULL);

  // A long detail is cut, never written past the 160 bytes.
  lapi_handle_t h = 0;
  lapi_info_t info = zeroed_info();
  info.protocol = 0x1234;
  REQUIRE(LAPI_Init(&h, &info) == LAPI_ERR_INFO_NONZERO);
  std::array<char, 2 * LAPI_MAX_ERR_STRING> big;
  big.fill('#');
  REQUIRE(LAPI_Msg_string(LAPI_ERR_INFO_NONZERO, big.data()) == LAPI_SUCCESS);
  CHECK(std::strlen(big.data()) < LAPI_MAX_ERR_STRING);
  CHECK(big[LAPI_MAX_ERR_STRING] == '#');
  CHECK(contains(big.data(), "protocol"));
}

TEST_CASE("LAPI_Init checks lapi_info_t like IBM LAPI") {
  lapi_handle_t h = 0;
  lapi_info_t info = zeroed_info();
  CHECK(LAPI_Init(nullptr, &info) == LAPI_ERR_RET_PTR_NULL);
  CHECK(LAPI_Init(&h, nullptr) == LAPI_ERR_INFO_NULL);

  struct Case {
    const char* field;
    void (*spoil)(lapi_info_t&);
  };
  const Case cases[] = {
      {"epoch_num", [](lapi_info_t& i) { i.epoch_num = 3; }},
      {"num_compl_hndlr_thr", [](lapi_info_t& i) { i.num_compl_hndlr_thr = 2; }},
      {"info6", [](lapi_info_t& i) { i.info6 = 1; }},
      {"instance_no", [](lapi_info_t& i) { i.instance_no = 17; }},
      {"lib_vers", [](lapi_info_t& i) { set_lib_vers_raw(&i, 9); }},
      {"lapi_thread_attr", [](lapi_info_t& i) { i.lapi_thread_attr = reinterpret_cast<com_thread_info_t*>(&i); }},
      {"add_info", [](lapi_info_t& i) { i.add_info = reinterpret_cast<lapi_extend_t*>(&i); }},
      {"protocol", [](lapi_info_t& i) { i.protocol = 0x1; }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.field);
    info = zeroed_info();
    c.spoil(info);
    Failure f = failure(LAPI_Init(&h, &info));
    CHECK(f.code == LAPI_ERR_INFO_NONZERO);
    CHECK(contains(f.text, c.field));
  }
}

TEST_CASE("interrupt mode is the default; LAPI_INTERRUPT_OFF selects polling") {
  int v = -1;
  {
    Handle h;
    REQUIRE(LAPI_Qenv(h.get(), INTERRUPT_SET, &v) == LAPI_SUCCESS);
    CHECK(v == 1);
  }
  Handle h(LAPI_INTERRUPT_OFF);
  REQUIRE(LAPI_Qenv(h.get(), INTERRUPT_SET, &v) == LAPI_SUCCESS);
  CHECK(v == 0);
}

TEST_CASE("bad and terminated handles") {
  int v = 0;
  lapi_cntr_t c;
  void* tab[1];
  const lapi_handle_t never = 12345;
  CHECK(LAPI_Qenv(0, TASK_ID, &v) == LAPI_ERR_HNDL_INVALID);
  Failure f = failure(LAPI_Qenv(never, TASK_ID, &v));
  CHECK(f.code == LAPI_ERR_HNDL_INVALID);
  CHECK(contains(f.text, "hndl=12345"));
  CHECK(contains(f.text, "LAPI_Qenv"));
  CHECK(LAPI_Senv(never, INTERRUPT_SET, 0) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Term(never) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Amsend(never, 0, reinterpret_cast<void*>(1L), nullptr, 0, nullptr, 0, nullptr, nullptr,
                    nullptr) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Put(never, 0, 0, nullptr, nullptr, nullptr, nullptr, nullptr) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Get(never, 0, 0, nullptr, nullptr, nullptr, nullptr) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Rmw(never, SWAP, 0, &v, &v, &v, nullptr) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Setcntr(never, &c, 0) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Getcntr(never, &c, &v) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Waitcntr(never, &c, 0, nullptr) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Probe(never) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Fence(never) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Gfence(never) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Address_init(never, nullptr, tab) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Addr_set(never, nullptr, 1) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPIS_Register_mem(never, &v, sizeof v) == LAPI_ERR_HNDL_INVALID);

  Handle h;
  lapi_handle_t stale = h.get();
  REQUIRE(h.term() == LAPI_SUCCESS);
  CHECK(LAPI_Qenv(stale, TASK_ID, &v) == LAPI_ERR_HNDL_INVALID);
  CHECK(LAPI_Term(stale) == LAPI_ERR_HNDL_INVALID);
  // A new handle in the same slot does not revive the old value.
  Handle again;
  CHECK(again.get() != stale);
  CHECK(LAPI_Qenv(stale, TASK_ID, &v) == LAPI_ERR_HNDL_INVALID);
}

TEST_CASE("two handles at once") {
  Handle a;
  Handle b;
  CHECK(a.get() != b.get());
  int v = -1;
  CHECK(LAPI_Qenv(a.get(), NUM_TASKS, &v) == LAPI_SUCCESS);
  CHECK(v == 1);
  CHECK(LAPI_Senv(a.get(), TIMEOUT, 60) == LAPI_SUCCESS);
  CHECK(LAPI_Qenv(b.get(), TIMEOUT, &v) == LAPI_SUCCESS);
  CHECK(v != 60);  // settings are per handle
  REQUIRE(a.term() == LAPI_SUCCESS);
  CHECK(LAPI_Qenv(b.get(), NUM_TASKS, &v) == LAPI_SUCCESS);
}

TEST_CASE("Qenv and Senv") {
  Handle h;
  int v = -1;
  CHECK(LAPI_Qenv(h.get(), TASK_ID, &v) == LAPI_SUCCESS);
  CHECK(v == 0);
  CHECK(LAPI_Qenv(h.get(), NUM_TASKS, &v) == LAPI_SUCCESS);
  CHECK(v == 1);
  CHECK(LAPI_Qenv(h.get(), LOC_ADDRTBL_SZ, &v) == LAPI_SUCCESS);
  CHECK(v == LAPIS_ADDRTBL_SZ);
  CHECK(LAPI_Qenv(h.get(), MAX_UHDR_SZ, &v) == LAPI_SUCCESS);
  CHECK(v > 0);
  CHECK(v % 4 == 0);
  CHECK(LAPI_Qenv(h.get(), MAX_DATA_SZ, &v) == LAPI_SUCCESS);
  CHECK(v > 0);

  CHECK(LAPI_Qenv(h.get(), TASK_ID, nullptr) == LAPI_ERR_RET_PTR_NULL);
  Failure f = failure(qenv_raw(h.get(), 999, &v));
  CHECK(f.code == LAPI_ERR_QUERY_TYPE);
  CHECK(contains(f.text, "query=999"));
  CHECK(qenv_raw(h.get(), -1, &v) == LAPI_ERR_QUERY_TYPE);
  CHECK(senv_raw(h.get(), 4711, 0) == LAPI_ERR_QUERY_TYPE);
  CHECK(LAPI_Qenv(h.get(), LAST_QUERY, &v) == LAPI_ERR_QUERY_TYPE);
  f = failure(LAPI_Qenv(h.get(), QUERY_STATISTICS, &v));
  CHECK(f.code == LAPI_ERR_QUERY_TYPE);
  CHECK(contains(f.text, "QUERY_STATISTICS"));

  f = failure(LAPI_Senv(h.get(), NUM_TASKS, 3));
  CHECK(f.code == LAPI_ERR_QUERY_TYPE);
  CHECK(contains(f.text, "cannot be set"));
  f = failure(LAPI_Senv(h.get(), INTERRUPT_SET, 7));
  CHECK(f.code == LAPI_ERR_SET_VAL);
  CHECK(contains(f.text, "INTERRUPT_SET=7"));
  CHECK(LAPI_Senv(h.get(), TIMEOUT, LAPIS_MIN_TIMEOUT - 1) == LAPI_ERR_SET_VAL);
  CHECK(LAPI_Senv(h.get(), ACK_THRESHOLD, 31) == LAPI_ERR_SET_VAL);
  CHECK(LAPI_Senv(h.get(), LAPIS_COMPLETION_POLICY, 3) == LAPI_ERR_SET_VAL);
  CHECK(LAPI_Senv(h.get(), LAPIS_EAGER_LIMIT, -1) == LAPI_ERR_SET_VAL);

  struct Setting {
    lapi_query_t query;
    int value;
  };
  for (Setting s : {Setting{INTERRUPT_SET, 0}, Setting{INTERRUPT_SET, 1}, Setting{ERROR_CHK, 0},
                    Setting{ERROR_CHK, 1}, Setting{TIMEOUT, 60}, Setting{ACK_THRESHOLD, 5},
                    Setting{LAPIS_COMPLETION_POLICY, LAPIS_POLICY_THREAD},
                    Setting{LAPIS_COMPLETION_POLICY, LAPIS_POLICY_INLINE}, Setting{LAPIS_EAGER_LIMIT, 0},
                    Setting{LAPIS_EAGER_LIMIT, 4096}}) {
    CAPTURE(s.query);
    CAPTURE(s.value);
    REQUIRE(LAPI_Senv(h.get(), s.query, s.value) == LAPI_SUCCESS);
    CHECK(LAPI_Qenv(h.get(), s.query, &v) == LAPI_SUCCESS);
    CHECK(v == s.value);
  }
}

TEST_CASE("argument checks name the argument") {
  Handle h;
  const lapi_handle_t hd = h.get();
  int v = 0, in[2] = {0, 0};
  char data[8] = {};
  int uhdr[4] = {};
  lapi_cntr_t c;
  lapi_cntr_t garbage;  // as an uninitialised stack counter may be
  std::memset(&garbage, 0xa5, sizeof garbage);
  void* p = nullptr;
  void* tab[1];
  void* index1 = reinterpret_cast<void*>(1L);

  struct Expect {
    int rc;
    int code;
    const char* text;
  };
  const Expect cases[] = {
      {LAPI_Amsend(hd, 1, index1, nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr), LAPI_ERR_TGT, "tgt=1"},
      {LAPI_Amsend(hd, 0, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr), LAPI_ERR_HDR_HNDLR_NULL, "hdr_hdl"},
      {LAPI_Amsend(hd, 0, index1, nullptr, 8, nullptr, 0, nullptr, nullptr, nullptr), LAPI_ERR_UHDR_NULL, "uhdr"},
      {LAPI_Amsend(hd, 0, index1, uhdr, 6, nullptr, 0, nullptr, nullptr, nullptr), LAPI_ERR_HDR_LEN, "uhdr_len=6"},
      {LAPI_Amsend(hd, 0, index1, uhdr, 1u << 20, nullptr, 0, nullptr, nullptr, nullptr), LAPI_ERR_UHDR_LEN, "MAX_UHDR_SZ"},
      {LAPI_Amsend(hd, 0, index1, uhdr, 16, nullptr, 8, nullptr, nullptr, nullptr), LAPI_ERR_ORG_ADDR_NULL, "udata"},
      {LAPI_Put(hd, 0, 8, nullptr, data, nullptr, nullptr, nullptr), LAPI_ERR_TGT_ADDR_NULL, "tgt_addr"},
      {LAPI_Put(hd, 0, 8, data, nullptr, nullptr, nullptr, nullptr), LAPI_ERR_ORG_ADDR_NULL, "org_addr"},
      {LAPI_Put(hd, 3, 8, data, data, nullptr, nullptr, nullptr), LAPI_ERR_TGT, "tgt=3"},
      {LAPI_Get(hd, 0, 8, nullptr, data, nullptr, nullptr), LAPI_ERR_TGT_ADDR_NULL, "tgt_addr"},
      {LAPI_Get(hd, 0, 8, data, nullptr, nullptr, nullptr), LAPI_ERR_ORG_ADDR_NULL, "org_addr"},
      {rmw_raw(hd, 7, 0, &v, in, &v), LAPI_ERR_RMW_OP, "op=7"},
      {rmw_raw(hd, -1, 0, &v, in, &v), LAPI_ERR_RMW_OP, "op=-1"},
      {LAPI_Rmw(hd, SWAP, 0, nullptr, in, &v, nullptr), LAPI_ERR_TGT_VAR_NULL, "tgt_var"},
      {LAPI_Rmw(hd, SWAP, 0, &v, nullptr, &v, nullptr), LAPI_ERR_IN_VAL_NULL, "in_val"},
      {LAPI_Rmw(hd, SWAP, 2, &v, in, &v, nullptr), LAPI_ERR_TGT, "tgt=2"},
      {LAPI_Setcntr(hd, nullptr, 0), LAPI_ERR_CNTR_NULL, "cntr"},
      {LAPI_Setcntr(hd, &c, -2), LAPI_ERR_CNTR_VAL, "val=-2"},
      {LAPI_Getcntr(hd, nullptr, &v), LAPI_ERR_CNTR_NULL, "cntr"},
      {LAPI_Getcntr(hd, &c, nullptr), LAPI_ERR_RET_PTR_NULL, "val"},
      {LAPI_Waitcntr(hd, nullptr, 1, nullptr), LAPI_ERR_CNTR_NULL, "cntr"},
      {LAPI_Waitcntr(hd, &c, -1, nullptr), LAPI_ERR_CNTR_VAL, "val=-1"},
      {LAPI_Waitcntr(hd, &garbage, 1, nullptr), LAPIS_ERR_CNTR_UNSET, "never set"},
      {LAPI_Getcntr(hd, &garbage, &v), LAPIS_ERR_CNTR_UNSET, "never set"},
      {LAPI_Addr_set(hd, nullptr, 0), LAPI_ERR_ADDR_HNDL_RANGE, "addr_hndl=0"},
      {LAPI_Addr_set(hd, nullptr, LAPIS_ADDRTBL_SZ), LAPI_ERR_ADDR_HNDL_RANGE, "addr_hndl=128"},
      {LAPI_Addr_get(hd, nullptr, 1), LAPI_ERR_RET_PTR_NULL, "addr"},
      {LAPI_Addr_get(hd, &p, -4), LAPI_ERR_ADDR_HNDL_RANGE, "addr_hndl=-4"},
      {LAPI_Address_init(hd, nullptr, nullptr), LAPI_ERR_ADDR_TBL_NULL, "add_tab"},
      {LAPI_Address_init64(hd, 0, nullptr), LAPI_ERR_ADDR_TBL_NULL, "add_tab"},
      {LAPI_Address(nullptr, nullptr), LAPI_ERR_RET_PTR_NULL, "ret_addr"},
      {LAPIS_Hdr_hndlr_register(hd, nullptr), LAPI_ERR_HDR_HNDLR_NULL, "hdr_hdl"},
      {LAPIS_Hdr_hndlr_register(hd, reinterpret_cast<hdr_hndlr_t*>(data)), LAPI_ERR_HDR_HNDLR_NULL, "not a function"},
      {LAPIS_Register_mem(hd, nullptr, 8), LAPI_WARN_PARM_NULL, "addr"},
      {LAPIS_Register_mem(hd, data, 0), LAPI_ERR_DATA_LEN, "len"},
      {LAPIS_Alloc_mem(hd, 64, nullptr), LAPI_ERR_RET_PTR_NULL, "addr"},
      {LAPIS_Alloc_mem(hd, 1UL << 50, &p), LAPI_ERR_MEMORY_EXHAUSTED, "more than RAM and swap"},
      {LAPIS_Free_mem(hd, nullptr), LAPI_WARN_PARM_NULL, "addr"},
      {LAPIS_Unregister_cntr(hd, nullptr), LAPI_ERR_CNTR_NULL, "cntr"},
  };
  static_cast<void>(tab);
  int i = 0;
  for (const Expect& e : cases) {
    CAPTURE(i++);
    CAPTURE(e.text);
    CHECK(e.rc == e.code);
  }
  // Msg_string's detail belongs to the most recent failure with that code.
  CHECK(LAPI_Put(hd, 0, 8, data, nullptr, nullptr, nullptr, nullptr) == LAPI_ERR_ORG_ADDR_NULL);
  CHECK(contains(message(LAPI_ERR_ORG_ADDR_NULL), "LAPI_Put: org_addr is NULL"));
  CHECK(rmw_raw(hd, 7, 0, &v, in, &v) == LAPI_ERR_RMW_OP);
  CHECK(contains(message(LAPI_ERR_RMW_OP), "op=7"));
  // Asking about another code gives only its fixed meaning.
  CHECK(!contains(message(LAPI_ERR_TGT), "op=7"));
}
