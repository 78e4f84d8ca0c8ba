// LAPIS_MPI_VARIANT, LAPIS_EAGER_LIMIT, LAPIS_EARLY_ARRIVAL_MAX, LAPIS_HELD_SEND_MAX and LAPIS_DIRECT_RECV parsing:
// valid values, suffixes, and clear errors naming the variable.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "mpcpi/mpcpi.hpp"

using mpcpi::Errc;
using mpcpi::Options;

namespace {
struct Env {
  Env(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~Env() { ::unsetenv(name_); }
  const char* name_;
};
}  // namespace

TEST_CASE("defaults without variables") {
  Options o;
  REQUIRE(Options::from_env(o) == Errc::success);
  CHECK(o.variant == mpcpi::Variant::enhanced);
  CHECK(o.eager_limit == mpcpi::kDefaultEagerLimit);
  CHECK(o.early_arrival_max == mpcpi::kDefaultEarlyArrivalMax);
}

TEST_CASE("variants and sizes with suffixes") {
  Env v("LAPIS_MPI_VARIANT", "counters");
  Env e("LAPIS_EAGER_LIMIT", "64k");
  Env m("LAPIS_EARLY_ARRIVAL_MAX", "2M");
  Env h("LAPIS_HELD_SEND_MAX", "16m");
  Options o;
  REQUIRE(Options::from_env(o) == Errc::success);
  CHECK(o.variant == mpcpi::Variant::counters);
  CHECK(o.eager_limit == 65536);
  CHECK(o.early_arrival_max == 2u << 20);
  CHECK(o.held_send_max == 16u << 20);
  CHECK(mpcpi::to_string(o.variant) == "counters");
  Env d("LAPIS_DIRECT_RECV", "0");
  REQUIRE(Options::from_env(o) == Errc::success);
  CHECK(!o.direct_recv);
}

TEST_CASE("invalid values name the variable and leave the options alone") {
  for (const char* bad : {"fast", "", "Enhanced"}) {
    Env v("LAPIS_MPI_VARIANT", bad);
    Options o;
    CHECK(Options::from_env(o) == Errc::invalid_arg);
    CHECK(std::string(mpcpi::last_error_detail()).find("LAPIS_MPI_VARIANT") != std::string::npos);
    CHECK(o.variant == mpcpi::Variant::enhanced);
  }
  for (const char* bad : {"-1", "12q", "k", "99999999999999999999", "2g"}) {
    Env e("LAPIS_EAGER_LIMIT", bad);
    Options o;
    CHECK(Options::from_env(o) == Errc::invalid_arg);
    CHECK(std::string(mpcpi::last_error_detail()).find("LAPIS_EAGER_LIMIT") != std::string::npos);
  }
  {
    Env held("LAPIS_HELD_SEND_MAX", "-5");
    Options o;
    CHECK(Options::from_env(o) == Errc::invalid_arg);
    CHECK(std::string(mpcpi::last_error_detail()).find("LAPIS_HELD_SEND_MAX") != std::string::npos);
    CHECK(o.held_send_max == mpcpi::kDefaultHeldSendMax);
  }
  for (const char* bad : {"2", "yes", ""}) {
    Env d("LAPIS_DIRECT_RECV", bad);
    Options o;
    CHECK(Options::from_env(o) == Errc::invalid_arg);
    CHECK(std::string(mpcpi::last_error_detail()).find("LAPIS_DIRECT_RECV") != std::string::npos);
    CHECK(o.direct_recv);
  }
  Env m("LAPIS_EARLY_ARRIVAL_MAX", "lots");
  Options o;
  CHECK(Options::from_env(o) == Errc::invalid_arg);
  CHECK(mpcpi::errc_name(Errc::invalid_arg) == "MPCPI_ERR_ARG");
}
