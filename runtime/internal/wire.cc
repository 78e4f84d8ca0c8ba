#include "runtime/internal/wire.hpp"

#include <cstring>

namespace lapis::runtime::internal {
namespace {

void append_u64(std::vector<std::byte>& out, std::uint64_t value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(value));
}

std::uint64_t load_u64(std::span<const std::byte> in) {
  std::uint64_t value;
  std::memcpy(&value, in.data(), sizeof(value));
  return value;
}

}  // namespace

std::vector<std::byte> encode_frame(MsgType type, std::uint32_t seq, std::span<const std::byte> payload) {
  const FrameHeader header{type, seq, payload.size()};
  std::vector<std::byte> out(sizeof(header) + payload.size());
  std::memcpy(out.data(), &header, sizeof(header));
  if (!payload.empty()) std::memcpy(out.data() + sizeof(header), payload.data(), payload.size());
  return out;
}

std::vector<std::byte> encode_gather_result(std::span<const std::vector<std::byte>> blobs) {
  std::size_t total = 8 * (1 + blobs.size());
  for (const auto& blob : blobs) total += blob.size();
  std::vector<std::byte> out;
  out.reserve(total);
  append_u64(out, blobs.size());
  for (const auto& blob : blobs) append_u64(out, blob.size());
  for (const auto& blob : blobs) out.insert(out.end(), blob.begin(), blob.end());
  return out;
}

std::optional<std::vector<std::vector<std::byte>>> decode_gather_result(std::span<const std::byte> payload,
                                                                        std::size_t expected_count) {
  if (payload.size() < 8 || load_u64(payload) != expected_count) return std::nullopt;
  payload = payload.subspan(8);
  if (payload.size() / 8 < expected_count) return std::nullopt;
  std::span<const std::byte> lengths = payload.first(8 * expected_count);
  std::span<const std::byte> data = payload.subspan(8 * expected_count);
  std::vector<std::vector<std::byte>> blobs(expected_count);
  for (std::size_t i = 0; i < expected_count; ++i) {
    const std::uint64_t len = load_u64(lengths.subspan(8 * i));
    if (len > data.size()) return std::nullopt;
    blobs[i].assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(len));
    data = data.subspan(len);
  }
  if (!data.empty()) return std::nullopt;
  return blobs;
}

std::span<const std::byte> as_bytes(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

std::string to_string(std::span<const std::byte> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

const char* msg_type_name(MsgType type) {
  switch (type) {
    case MsgType::kNone: return "none";
    case MsgType::kHello: return "hello";
    case MsgType::kWelcome: return "welcome";
    case MsgType::kAllgather: return "allgather";
    case MsgType::kAllgatherResult: return "allgather-result";
    case MsgType::kBarrier: return "barrier";
    case MsgType::kBarrierDone: return "barrier-done";
    case MsgType::kError: return "error";
    case MsgType::kEnter: return "enter";
    case MsgType::kLeave: return "leave";
    case MsgType::kFailed: return "failed";
    case MsgType::kAbort: return "abort";
  }
  return "unknown";
}

}  // namespace lapis::runtime::internal
