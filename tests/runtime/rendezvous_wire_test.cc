#include "runtime/internal/wire.hpp"

#include <doctest/doctest.h>

#include <cstring>

using namespace lapis::runtime::internal;

namespace {

std::vector<std::byte> bytes(std::string_view text) {
  const auto view = std::as_bytes(std::span(text.data(), text.size()));
  return {view.begin(), view.end()};
}

}  // namespace

TEST_CASE("gather results round-trip, including empty blobs") {
  const std::vector<std::vector<std::byte>> blobs = {bytes("abc"), {}, bytes("a longer blob"), {}};
  const auto encoded = encode_gather_result(blobs);
  const auto decoded = decode_gather_result(encoded, blobs.size());
  REQUIRE(decoded);
  CHECK(*decoded == blobs);
}

TEST_CASE("malformed gather results are rejected") {
  const std::vector<std::vector<std::byte>> blobs = {bytes("abc"), bytes("de")};
  auto encoded = encode_gather_result(blobs);
  CHECK_FALSE(decode_gather_result(encoded, 3));                                    // wrong count
  CHECK_FALSE(decode_gather_result(std::span(encoded).first(encoded.size() - 1), 2));  // truncated
  encoded.push_back(std::byte{0});
  CHECK_FALSE(decode_gather_result(encoded, 2));                                    // trailing garbage
  CHECK_FALSE(decode_gather_result({}, 0));
  const std::vector<std::byte> huge_length = encode_gather_result({{bytes("x")}});
  auto corrupt = huge_length;
  corrupt[8] = std::byte{0xff};  // first length now far beyond the data
  CHECK_FALSE(decode_gather_result(corrupt, 1));
}

TEST_CASE("frames carry type, sequence number and payload") {
  const auto frame = encode_frame(MsgType::kAllgather, 7, bytes("hello"));
  REQUIRE(frame.size() == sizeof(FrameHeader) + 5);
  FrameHeader header;
  std::memcpy(&header, frame.data(), sizeof(header));
  CHECK(header.type == MsgType::kAllgather);
  CHECK(header.seq == 7);
  CHECK(header.length == 5);
  CHECK(to_string(std::span(frame).subspan(sizeof(FrameHeader))) == "hello");
  CHECK(std::string(msg_type_name(MsgType::kBarrierDone)) == "barrier-done");
}
