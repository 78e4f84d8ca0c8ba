#pragma once
// LAPI_OK(expr): the core call must succeed; otherwise the test stops, showing the status's
// message (which names the bad argument or what failed).
#include <doctest/doctest.h>

#include "lapi/status.hpp"

#define LAPI_OK(expr)                                                  \
  do {                                                                 \
    const ::lapi::Status lapi_ok_status_ = (expr);                     \
    REQUIRE_MESSAGE(lapi_ok_status_.ok(), lapi_ok_status_.message()); \
  } while (0)
