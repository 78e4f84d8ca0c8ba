#include <doctest/doctest.h>
#include <fmt/core.h>
#include <ucp/api/ucp.h>
TEST_CASE("toolchain") { CHECK(fmt::format("{}", 42) == "42"); unsigned a,b,c; ucp_get_version(&a,&b,&c); CHECK(a == 1); }
