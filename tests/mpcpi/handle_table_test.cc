// Handles naming local requests in protocol messages: stale, forged and
// reused handles must find nothing. Also the wrapping sequence comparison.
#include <doctest/doctest.h>

#include "mpcpi/internal/handle_table.hpp"
#include "mpcpi/internal/wire.hpp"

using mpcpi::detail::HandleTable;

TEST_CASE("handle table: insert, find, erase, and stale handles") {
  HandleTable<int> table;
  int a = 1;
  int b = 2;
  const auto ha = table.insert(&a);
  const auto hb = table.insert(&b);
  CHECK(ha != 0);
  CHECK(ha != hb);
  CHECK(table.find(ha) == &a);
  CHECK(table.find(hb) == &b);
  CHECK(table.size() == 2);
  CHECK(table.erase(ha) == &a);
  CHECK(table.find(ha) == nullptr);   // stale
  CHECK(table.erase(ha) == nullptr);  // twice
  const auto hc = table.insert(&b);   // reuses the slot with a new generation
  CHECK(static_cast<std::uint32_t>(hc) == static_cast<std::uint32_t>(ha));
  CHECK(hc != ha);
  CHECK(table.find(ha) == nullptr);
  CHECK(table.find(hc) == &b);
  CHECK(table.find(0) == nullptr);
  CHECK(table.find(0xffffffff00000000ULL | 5) == nullptr);  // forged
}

TEST_CASE("sequence numbers compare across wrap-around") {
  using mpcpi::detail::seq_before;
  CHECK(seq_before(1, 2));
  CHECK_FALSE(seq_before(2, 1));
  CHECK_FALSE(seq_before(7, 7));
  CHECK(seq_before(0xfffffffeu, 1));
  CHECK_FALSE(seq_before(1, 0xfffffffeu));
}

TEST_CASE("wire headers are parsed only at their exact size") {
  using mpcpi::detail::Envelope;
  using mpcpi::detail::read_header;
  Envelope e{1, 2, 3, 0, 0, 0};
  CHECK(read_header<Envelope>(&e, sizeof e).has_value());
  CHECK_FALSE(read_header<Envelope>(&e, sizeof e - 1).has_value());
  CHECK_FALSE(read_header<Envelope>(&e, sizeof e + 1).has_value());
  CHECK_FALSE(read_header<Envelope>(nullptr, sizeof e).has_value());
  CHECK(read_header<Envelope>(&e, sizeof e)->tag == 2);
}
