// The launcher's rendezvous server, driven directly: how it tells a rank that ended from a
// link that was lost.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "doctest/doctest.h"
#include "runtime/internal/fd.hpp"
#include "runtime/internal/rendezvous_server.hpp"
#include "runtime/internal/wire.hpp"

namespace rt = lapis::runtime::internal;

namespace {

// An abstract-namespace socket: no file to clean up, unique per process.
sockaddr_un listen_address() {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = "lapis-test-rendezvous-" + std::to_string(::getpid());
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return addr;
}

// Hands the server every event poll() reports until none is left.
void pump(rt::RendezvousServer& server) {
  for (;;) {
    std::vector<pollfd> fds;
    server.append_pollfds(fds);
    const int n = ::poll(fds.data(), fds.size(), 0);
    REQUIRE(n >= 0);
    server.handle_events(fds);
    if (n == 0) return;
  }
}

}  // namespace

TEST_CASE("a rank that dies with a reply unread ended; its link was not lost") {
  const sockaddr_un addr = listen_address();
  rt::UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener.get(), 4) == 0);
  rt::RendezvousServer server(std::move(listener), 1);

  rt::UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(::connect(client.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  const std::uint32_t size = 1;
  const auto hello = rt::encode_frame(rt::MsgType::kHello, 0, std::as_bytes(std::span(&size, 1)));
  REQUIRE(::write(client.get(), hello.data(), hello.size()) == static_cast<ssize_t>(hello.size()));
  pump(server);
  REQUIRE(server.all_joined());

  // The Welcome is still unread when the rank goes: its kernel resets the connection, as when
  // a rank is killed inside its init. That is the rank ending (its reap tells how), not its
  // host becoming unreachable.
  client.reset();
  pump(server);
  CHECK(server.take_lost_links().empty());
}
