// The C API on one task (singleton bootstrap), talking to itself: header and
// completion handlers by index and by address, LAPI_BURY_MSG, the
// header-handler rule, the counter overlay, Put/Get/Rmw with LAPI's boolean
// COMPARE_AND_SWAP, and refusal of unregistered memory.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "lapi/lapi.h"

namespace {

std::string message(int code) {
  char buf[LAPI_MAX_ERR_STRING];
  LAPI_Msg_string(code, buf);
  return buf;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

lapi_info_t zeroed_info() {
  lapi_info_t info;
  std::memset(&info, 0, sizeof info);
  return info;
}

// ---- handlers for the loopback tests
struct Seen {
  int headers = 0;
  int completions = 0;
  int src = -1;
  unsigned long msg_len = 0;
  int comm_rc = 0;
  std::array<char, 64> uhdr{};
};
Seen g_seen;
char g_landing[4096];

void on_complete(lapi_handle_t*, void* param) {
  ++static_cast<Seen*>(param)->completions;
}

void* on_header(lapi_handle_t*, void* uhdr, unsigned* uhdr_len, unsigned long* msg_len,
                compl_hndlr_t** comp_h, void** uinfo) {
  auto* ret = reinterpret_cast<lapi_return_info_t*>(msg_len);
  ++g_seen.headers;
  g_seen.src = ret->src;
  g_seen.msg_len = *msg_len;
  std::memcpy(g_seen.uhdr.data(), uhdr, std::min<std::size_t>(*uhdr_len, g_seen.uhdr.size()));
  *comp_h = on_complete;
  *uinfo = &g_seen;
  return g_landing;
}

void* on_header_bury(lapi_handle_t*, void*, unsigned*, unsigned long* msg_len, compl_hndlr_t** comp_h,
                     void** uinfo) {
  ++g_seen.headers;
  reinterpret_cast<lapi_return_info_t*>(msg_len)->ctl_flags = LAPI_BURY_MSG;
  *comp_h = on_complete;
  *uinfo = &g_seen;
  return g_landing;
}

void* on_header_sends(lapi_handle_t* hndl, void*, unsigned*, unsigned long*, compl_hndlr_t**, void**) {
  ++g_seen.headers;
  g_seen.comm_rc = LAPI_Amsend(*hndl, 0, reinterpret_cast<void*>(1L), nullptr, 0, nullptr, 0,
                               nullptr, nullptr, nullptr);
  return nullptr;
}

void* never_registered(lapi_handle_t*, void*, unsigned*, unsigned long*, compl_hndlr_t**, void**) {
  ++g_seen.headers;
  return nullptr;
}

struct AsyncError {
  int calls = 0;
  int code = 0;
  lapi_err_t type = GET_ERR;
};
AsyncError g_async;
void on_async_error(lapi_handle_t*, int* code, lapi_err_t* type, int*, int*) {
  ++g_async.calls;
  g_async.code = *code;
  g_async.type = *type;
}

}  // namespace

TEST_CASE("loopback traffic through the C bridges") {
  g_seen = Seen{};
  g_async = AsyncError{};
  lapi_handle_t hd = 0;
  lapi_info_t info = zeroed_info();
  info.err_hndlr = on_async_error;
  REQUIRE(LAPI_Init(&hd, &info) == LAPI_SUCCESS);

  static lapi_cntr_t tgt;
  lapi_cntr_t org, cmpl;
  REQUIRE(LAPI_Setcntr(hd, &tgt, 4) == LAPI_SUCCESS);
  CHECK(tgt.cntr == 4);  // the C member overlays the value
  int v = -1;
  CHECK(LAPI_Getcntr(hd, &tgt, &v) == LAPI_SUCCESS);
  CHECK(v == 4);
  CHECK(LAPI_Waitcntr(hd, &tgt, 3, &v) == LAPI_SUCCESS);
  CHECK(v == 1);  // Waitcntr subtracts what it waited for
  REQUIRE(LAPI_Setcntr(hd, &tgt, 0) == LAPI_SUCCESS);
  REQUIRE(LAPI_Setcntr(hd, &org, 0) == LAPI_SUCCESS);
  REQUIRE(LAPI_Setcntr(hd, &cmpl, 0) == LAPI_SUCCESS);
  void* tgt_tab[1];
  REQUIRE(LAPI_Address_init(hd, &tgt, tgt_tab) == LAPI_SUCCESS);
  CHECK(tgt_tab[0] == &tgt);
  auto* tgt_here = static_cast<lapi_cntr_t*>(tgt_tab[0]);

  SUBCASE("Amsend by Addr_set index runs both handlers") {
    REQUIRE(LAPI_Addr_set(hd, reinterpret_cast<void*>(on_header), 9) == LAPI_SUCCESS);
    void* back = nullptr;
    CHECK(LAPI_Addr_get(hd, &back, 9) == LAPI_SUCCESS);
    CHECK(back == reinterpret_cast<void*>(on_header));
    int uhdr[2] = {0x11223344, 0x55667788};
    char data[100];
    std::memset(data, 0x5a, sizeof data);
    REQUIRE(LAPI_Amsend(hd, 0, reinterpret_cast<void*>(9L), uhdr, sizeof uhdr, data, sizeof data, tgt_here,
                        &org, &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &tgt, 1, nullptr) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_SUCCESS);
    CHECK(g_seen.headers == 1);
    CHECK(g_seen.completions == 1);
    CHECK(g_seen.src == 0);
    CHECK(g_seen.msg_len == sizeof data);
    CHECK(std::memcmp(g_seen.uhdr.data(), uhdr, sizeof uhdr) == 0);
    CHECK(std::memcmp(g_landing, data, sizeof data) == 0);
  }

  SUBCASE("Amsend by a registered function address") {
    REQUIRE(LAPIS_Hdr_hndlr_register(hd, on_header) == LAPI_SUCCESS);
    int uhdr[1] = {42};
    REQUIRE(LAPI_Amsend(hd, 0, reinterpret_cast<void*>(on_header), uhdr, sizeof uhdr, nullptr, 0,
                        tgt_here, nullptr, &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &tgt, 1, nullptr) == LAPI_SUCCESS);
    CHECK(g_seen.headers == 1);
    CHECK(g_seen.completions == 1);
    CHECK(g_seen.uhdr[0] == 42);
  }

  SUBCASE("an unknown function address is refused, counted and reported to the origin") {
    int before = -1;
    REQUIRE(LAPI_Qenv(hd, LAPIS_FAULTS_REFUSED, &before) == LAPI_SUCCESS);
    REQUIRE(LAPI_Amsend(hd, 0, reinterpret_cast<void*>(never_registered), nullptr, 0, nullptr, 0, nullptr,
                        nullptr, &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_ERR_HDR_HNDLR_NULL);
    CHECK(g_seen.headers == 0);
    int after = -1;
    REQUIRE(LAPI_Qenv(hd, LAPIS_FAULTS_REFUSED, &after) == LAPI_SUCCESS);
    CHECK(after == before + 1);
    CHECK(g_async.calls == 1);
    CHECK(g_async.code == LAPI_ERR_HDR_HNDLR_NULL);
    CHECK(g_async.type == AM_ERR);
  }

  SUBCASE("LAPI_BURY_MSG drops the data and the completion handler") {
    REQUIRE(LAPI_Addr_set(hd, reinterpret_cast<void*>(on_header_bury), 10) == LAPI_SUCCESS);
    std::memset(g_landing, 0, sizeof g_landing);
    char data[16];
    std::memset(data, 0x77, sizeof data);
    REQUIRE(LAPI_Amsend(hd, 0, reinterpret_cast<void*>(10L), nullptr, 0, data, sizeof data, nullptr,
                        nullptr, &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_SUCCESS);
    CHECK(g_seen.headers == 1);
    CHECK(g_seen.completions == 0);
    CHECK(g_landing[0] == 0);
  }

  SUBCASE("a header handler may not communicate") {
    REQUIRE(LAPI_Addr_set(hd, reinterpret_cast<void*>(on_header_sends), 11) == LAPI_SUCCESS);
    REQUIRE(LAPI_Amsend(hd, 0, reinterpret_cast<void*>(11L), nullptr, 0, nullptr, 0, nullptr, nullptr,
                        &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_SUCCESS);
    CHECK(g_seen.headers == 1);
    CHECK(g_seen.comm_rc == LAPIS_ERR_IN_HEADER_HANDLER);
  }

  SUBCASE("Put, Get and Rmw on registered memory") {
    static int region[8];
    static long long region64[2];
    REQUIRE(LAPIS_Register_mem(hd, region, sizeof region) == LAPI_SUCCESS);
    REQUIRE(LAPIS_Register_mem(hd, region64, sizeof region64) == LAPI_SUCCESS);
    int src[4] = {1, 2, 3, 4}, dst[4] = {};
    REQUIRE(LAPI_Put(hd, 0, sizeof src, region, src, tgt_here, &org, &cmpl) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &cmpl, 1, nullptr) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &tgt, 1, nullptr) == LAPI_SUCCESS);
    CHECK(region[3] == 4);
    REQUIRE(LAPI_Get(hd, 0, sizeof dst, region, dst, nullptr, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(dst[2] == 3);

    int add = 10, prev = -1;
    REQUIRE(LAPI_Rmw(hd, FETCH_AND_ADD, 0, &region[0], &add, &prev, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(prev == 1);
    CHECK(region[0] == 11);

    int cas[2] = {11, 50};
    REQUIRE(LAPI_Rmw(hd, COMPARE_AND_SWAP, 0, &region[0], cas, &prev, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(prev == 1);  // TRUE: swapped
    CHECK(region[0] == 50);
    REQUIRE(LAPI_Rmw(hd, COMPARE_AND_SWAP, 0, &region[0], cas, &prev, nullptr) == LAPI_SUCCESS);
    CHECK(prev == 0);  // FALSE: 50 != 11
    CHECK(region[0] == 50);

    // Every op on this task's own memory (UCX's self transport path).
    int bits = 0x6;
    region[1] = 0x10;
    REQUIRE(LAPI_Rmw(hd, FETCH_AND_OR, 0, &region[1], &bits, &prev, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(prev == 0x10);
    CHECK(region[1] == 0x16);
    long long bits64 = 1LL << 35, prev64 = -1;
    region64[1] = 0x10;
    REQUIRE(LAPI_Rmw64(hd, FETCH_AND_OR, 0, &region64[1], &bits64, &prev64, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(prev64 == 0x10);
    CHECK(region64[1] == (0x10 | (1LL << 35)));

    long long sw = 1LL << 40;
    prev64 = -1;
    REQUIRE(LAPI_Rmw64(hd, SWAP, 0, &region64[0], &sw, &prev64, &org) == LAPI_SUCCESS);
    CHECK(LAPI_Waitcntr(hd, &org, 1, nullptr) == LAPI_SUCCESS);
    CHECK(prev64 == 0);
    CHECK(region64[0] == sw);
  }

  SUBCASE("Put outside registered memory is refused, never executed") {
    static int unregistered[4] = {7, 7, 7, 7};
    int src[4] = {1, 2, 3, 4};
    int rc = LAPI_Put(hd, 0, sizeof src, unregistered, src, nullptr, nullptr, &cmpl);
    if (rc == LAPI_SUCCESS) rc = LAPI_Waitcntr(hd, &cmpl, 1, nullptr);
    CHECK(rc != LAPI_SUCCESS);
    CHECK(unregistered[0] == 7);
    CHECK(contains(message(rc), "LAPI"));
  }

  CHECK(LAPI_Term(hd) == LAPI_SUCCESS);
}
