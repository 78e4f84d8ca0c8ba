// Options from the environment, and the names of codes and enums.

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>

#include "mpcpi/internal/errors.hpp"
#include "mpcpi/mpcpi.hpp"

namespace mpcpi {

namespace {

// "16384", "64k", "32M", "1g" (binary multiples). False on anything else.
bool parse_size(const char* text, std::size_t& out) {
  if (text == nullptr || *text == '\0' || *text == '-' || *text == '+') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return false;
  unsigned shift = 0;
  switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: return false;
  }
  if (*end != '\0') return false;
  if (n > (std::numeric_limits<std::size_t>::max() >> shift)) return false;
  out = static_cast<std::size_t>(n) << shift;
  return true;
}

}  // namespace

Errc Options::from_env(Options& options) {
  Options o = options;
  if (const char* v = std::getenv("LAPIS_MPI_VARIANT")) {
    const std::string s(v);
    if (s == "base") {
      o.variant = Variant::base;
    } else if (s == "counters") {
      o.variant = Variant::counters;
    } else if (s == "enhanced") {
      o.variant = Variant::enhanced;
    } else {
      return fail(Errc::invalid_arg,
                  "LAPIS_MPI_VARIANT='{}' is not one of base, counters, enhanced", s);
    }
  }
  if (const char* v = std::getenv("LAPIS_EAGER_LIMIT")) {
    if (!parse_size(v, o.eager_limit) || o.eager_limit > (std::size_t{1} << 30))
      return fail(Errc::invalid_arg,
                  "LAPIS_EAGER_LIMIT='{}' is not a byte count up to 1g (e.g. 16384, 64k)", v);
  }
  if (const char* v = std::getenv("LAPIS_EARLY_ARRIVAL_MAX")) {
    if (!parse_size(v, o.early_arrival_max))
      return fail(Errc::invalid_arg,
                  "LAPIS_EARLY_ARRIVAL_MAX='{}' is not a byte count (e.g. 33554432, 32m)", v);
  }
  if (const char* v = std::getenv("LAPIS_HELD_SEND_MAX")) {
    if (!parse_size(v, o.held_send_max))
      return fail(Errc::invalid_arg,
                  "LAPIS_HELD_SEND_MAX='{}' is not a byte count (e.g. 67108864, 64m)", v);
  }
  if (const char* v = std::getenv("LAPIS_DIRECT_RECV")) {
    const std::string s(v);
    if (s != "0" && s != "1")
      return fail(Errc::invalid_arg, "LAPIS_DIRECT_RECV='{}' is not 0 or 1", s);
    o.direct_recv = s == "1";
  }
  options = o;
  return Errc::success;
}

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::success: return "MPCPI_SUCCESS";
    case Errc::truncate: return "MPCPI_ERR_TRUNCATE";
    case Errc::buffer: return "MPCPI_ERR_BUFFER";
    case Errc::ready_no_match: return "MPCPI_ERR_READY_NO_MATCH";
    case Errc::invalid_rank: return "MPCPI_ERR_RANK";
    case Errc::invalid_tag: return "MPCPI_ERR_TAG";
    case Errc::invalid_count: return "MPCPI_ERR_COUNT";
    case Errc::invalid_request: return "MPCPI_ERR_REQUEST";
    case Errc::invalid_arg: return "MPCPI_ERR_ARG";
    case Errc::no_memory: return "MPCPI_ERR_NO_MEM";
    case Errc::transport: return "MPCPI_ERR_TRANSPORT";
    case Errc::terminated: return "MPCPI_ERR_TERMINATED";
    case Errc::peer_failed: return "MPCPI_ERR_PEER_FAILED";
    case Errc::revoked: return "MPCPI_ERR_REVOKED";
    case Errc::any_source_failed: return "MPCPI_ERR_ANY_SOURCE_FAILED";
  }
  return "MPCPI_ERR_UNKNOWN";
}

std::string_view last_error_detail() { return lapi::last_error_detail(); }

std::string_view to_string(Variant variant) {
  switch (variant) {
    case Variant::base: return "base";
    case Variant::counters: return "counters";
    case Variant::enhanced: return "enhanced";
  }
  return "unknown";
}

std::string_view to_string(SendMode mode) {
  switch (mode) {
    case SendMode::standard: return "standard";
    case SendMode::ready: return "ready";
    case SendMode::synchronous: return "synchronous";
    case SendMode::buffered: return "buffered";
  }
  return "unknown";
}

}  // namespace mpcpi
