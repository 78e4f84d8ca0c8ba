// Fuzzes the launcher's side of the rendezvous protocol
// (runtime/internal/rendezvous_server.cc, runtime/internal/wire.cc): a real
// RendezvousServer on a listening Unix socket, clients that write arbitrary
// bytes (well-formed frames, forged ones, or raw bytes split anywhere), ranks
// that go away, and the client's decoder of gathered results.
//
// Input: one byte for the job size and client count, then operations (see
// the loop below). The server runs single-threaded, as in the launcher: the
// harness polls and hands it the events after each step.
//
// Checks, besides the sanitizers: every reply the server sends is a
// well-formed frame of a server message type, every allgather result it
// sends decodes to exactly one blob per rank, and the server never blocks.

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/internal/fd.hpp"
#include "runtime/internal/rendezvous_server.hpp"
#include "runtime/internal/wire.hpp"

namespace {

namespace rt = lapis::runtime::internal;

void require(bool ok) {
  if (!ok) std::abort();
}

// An abstract-namespace socket: no file to clean up, unique per process.
sockaddr_un listen_address() {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = "lapis-fuzz-rendezvous-" + std::to_string(::getpid());
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return addr;
}

rt::UniqueFd make_listener(const sockaddr_un& addr) {
  rt::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  require(fd.valid());
  require(::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  require(::listen(fd.get(), 64) == 0);
  return fd;
}

rt::UniqueFd connect_client(const sockaddr_un& addr) {
  rt::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  require(fd.valid());
  require(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

// One poll() round of the server, as the launcher's loop runs it.
void pump(rt::RendezvousServer& server) {
  for (int round = 0; round < 8; ++round) {
    std::vector<pollfd> fds;
    server.append_pollfds(fds);
    const int n = ::poll(fds.data(), fds.size(), 0);
    if (n < 0 && errno == EINTR) continue;  // libFuzzer's timer signal
    require(n >= 0);
    server.handle_events(fds);
    if (n == 0) return;
  }
}

// What a client received: frames from the server, checked and decoded.
struct Client {
  rt::UniqueFd fd;
  std::vector<std::byte> in;

  void read_replies(int size) {
    std::byte chunk[4096];
    for (;;) {
      const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
      if (n <= 0) break;
      in.insert(in.end(), chunk, chunk + n);
    }
    while (in.size() >= sizeof(rt::FrameHeader)) {
      rt::FrameHeader h;
      std::memcpy(&h, in.data(), sizeof h);
      require(h.type == rt::MsgType::kWelcome || h.type == rt::MsgType::kAllgatherResult ||
              h.type == rt::MsgType::kBarrierDone || h.type == rt::MsgType::kError);
      require(h.length <= rt::kMaxPayload);
      if (in.size() - sizeof h < h.length) break;
      const std::span<const std::byte> payload(in.data() + sizeof h, h.length);
      if (h.type == rt::MsgType::kAllgatherResult) {
        require(rt::decode_gather_result(payload, static_cast<std::size_t>(size)).has_value());
      }
      if (h.type == rt::MsgType::kError) require(!payload.empty());
      in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(sizeof h + h.length));
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t* p = data;
  const std::uint8_t* end = data + size;
  auto byte = [&]() -> std::uint8_t { return p < end ? *p++ : 0; };

  // The client's decoder on its own, on the raw input.
  (void)rt::decode_gather_result(std::as_bytes(std::span(data, size)), data[0] % 5);

  const int job_size = byte() % 4 + 1;
  // One listening socket for the process; each input's server gets a copy.
  static const sockaddr_un addr = listen_address();
  static const rt::UniqueFd listener = make_listener(addr);
  rt::RendezvousServer server(rt::UniqueFd(::dup(listener.get())), job_size);
  std::vector<Client> clients;
  const int nclients = job_size + (data[0] >> 2) % 2;  // sometimes one too many
  for (int i = 0; i < nclients; ++i) clients.push_back({connect_client(addr), {}});
  pump(server);

  for (int ops = 0; p < end && ops < 32; ++ops) {
    const std::uint8_t op = byte();
    Client& c = clients[static_cast<std::size_t>(op >> 3) % clients.size()];
    if (!c.fd.valid()) continue;
    std::vector<std::byte> bytes;
    switch (op & 7) {
      case 0: case 1: case 2: {  // a well-formed frame with a fuzzed type, seq and payload
        const auto type = static_cast<rt::MsgType>(op & 1 ? byte() % 8 : 3 + 2 * (op >> 1 & 1));
        std::uint32_t seq = byte();
        if ((op & 2) != 0 && type == rt::MsgType::kHello) seq = static_cast<std::uint32_t>(byte() % job_size);
        const std::size_t want = byte();  // before end - p: argument order is unspecified
        const std::size_t n = std::min<std::size_t>(want, static_cast<std::size_t>(end - p));
        std::vector<std::byte> payload(reinterpret_cast<const std::byte*>(p),
                                       reinterpret_cast<const std::byte*>(p + n));
        p += n;
        if (type == rt::MsgType::kHello && payload.size() != 4 && (op & 4) != 0) {
          const std::uint32_t sz = static_cast<std::uint32_t>(job_size);
          payload.resize(4);
          std::memcpy(payload.data(), &sz, 4);
        }
        bytes = rt::encode_frame(type, seq, payload);
        break;
      }
      case 3: case 4: {  // raw bytes: a forged header, a frame split anywhere
        const std::size_t want = byte();  // before end - p: argument order is unspecified
        const std::size_t n = std::min<std::size_t>(want, static_cast<std::size_t>(end - p));
        bytes.assign(reinterpret_cast<const std::byte*>(p), reinterpret_cast<const std::byte*>(p + n));
        p += n;
        break;
      }
      case 5:  // the client goes away
        c.fd.reset();
        break;
      case 6:  // the launcher reaped a rank
        server.mark_rank_gone(byte() % job_size, "rank exited");
        break;
      case 7:  // the client shuts its sending side (a rank that died mid-frame)
        ::shutdown(c.fd.get(), SHUT_WR);
        break;
    }
    if (!bytes.empty()) {
      // The socket buffer holds far more than one input; a full one is a finding.
      const ssize_t n = ::send(c.fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      require(n == static_cast<ssize_t>(bytes.size()) || n < 0);
    }
    pump(server);
    for (Client& each : clients) {
      if (each.fd.valid()) each.read_replies(job_size);
    }
  }
  return 0;
}
