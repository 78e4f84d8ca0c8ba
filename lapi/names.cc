// The name service (names.hpp). One request per connection: an operation letter and its
// fields, NUL-separated; the answer 'Y' with the result or 'N' with why not.
#include "lapi/names.hpp"

#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "lapi/link.hpp"

namespace lapi::names {
namespace {

constexpr std::size_t kMaxName = 1024;

// A request: the operation letter, then its fields, NUL-separated.
std::vector<std::byte> pack(char op, std::string_view a, std::string_view b = {}) {
  std::string text(1, op);
  text.append(a).push_back('\0');
  text.append(b);
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

// An answer: 'Y' or 'N', then the result or the reason as it is.
std::vector<std::byte> reply(char verdict, std::string_view text) {
  std::string out(1, verdict);
  out.append(text);
  const auto* p = reinterpret_cast<const std::byte*>(out.data());
  return {p, p + out.size()};
}

// One request to the daemon; `result` is its answer's text.
Status ask(const char* fn, std::vector<std::byte> request, std::string& result) {
  const char* server = std::getenv("LAPIS_NAME_SERVER");
  if (server == nullptr || *server == '\0') {
    return fail(Errc::no_connectivity,
                "{}: no name server: LAPIS_NAME_SERVER is unset or empty (lapirun gives its jobs one; "
                "jobs started apart share a lapis_names daemon's, the port it prints)", fn);
  }
  std::unique_ptr<Link> link;
  if (Status s = PortTable::connect(server, link); !s.ok()) {
    return fail(Errc::no_connectivity, "{}: the name server (LAPIS_NAME_SERVER): {}", fn, s.message());
  }
  std::vector<std::byte> answer;
  if (Status s = link->exchange(request, answer); !s.ok()) return s;
  if (answer.empty()) return fail(Errc::no_connectivity, "{}: the name server sent an empty answer", fn);
  result.assign(reinterpret_cast<const char*>(answer.data()) + 1, answer.size() - 1);
  if (answer[0] != std::byte{'Y'}) return fail(Errc::set_val, "{}: {}", fn, result);
  return Errc::success;
}

Status check_name(const char* fn, const char* what, std::string_view name) {
  if (name.empty() || name.size() > kMaxName || name.find('\0') != std::string_view::npos) {
    return fail(Errc::set_val, "{}: {} '{}' is empty, longer than {} or holds a NUL", fn, what, name, kMaxName);
  }
  return Errc::success;
}

// The daemon's answer to one request.
std::vector<std::byte> answer(std::map<std::string, std::string, std::less<>>& table,
                              const std::vector<std::byte>& request) {
  const std::string text(reinterpret_cast<const char*>(request.data()), request.size());
  const std::size_t nul = text.find('\0');
  if (text.empty() || nul == std::string::npos) return reply('N', "malformed request");
  const std::string service = text.substr(1, nul - 1);
  const std::string port = text.substr(nul + 1);
  switch (text[0]) {
    case 'P':
      if (!table.emplace(service, port).second) return reply('N', "service '" + service + "' is published already");
      return reply('Y', "");
    case 'L': {
      auto it = table.find(service);
      if (it == table.end()) return reply('N', "service '" + service + "' is not published");
      return reply('Y', it->second);
    }
    case 'U':
      if (table.erase(service) == 0) return reply('N', "service '" + service + "' is not published");
      return reply('Y', "");
    default:
      return reply('N', "unknown request");
  }
}

}  // namespace

Status publish(std::string_view service, std::string_view port) {
  if (Status s = check_name("publish", "service", service); !s.ok()) return s;
  if (Status s = check_name("publish", "port", port); !s.ok()) return s;
  std::string ignored;
  return ask("publish", pack('P', service, port), ignored);
}

Status lookup(std::string_view service, std::string& port) {
  if (Status s = check_name("lookup", "service", service); !s.ok()) return s;
  return ask("lookup", pack('L', service), port);
}

Status unpublish(std::string_view service) {
  if (Status s = check_name("unpublish", "service", service); !s.ok()) return s;
  std::string ignored;
  return ask("unpublish", pack('U', service), ignored);
}

Status serve(std::string_view port, const std::atomic<bool>& stop, int idle_ms) {
  std::map<std::string, std::string, std::less<>> table;
  auto keep_waiting = [](void* arg) { return !static_cast<const std::atomic<bool>*>(arg)->load(); };
  while (!stop.load()) {
    std::unique_ptr<Link> link;
    if (Status s = PortTable::accept(port, keep_waiting, const_cast<std::atomic<bool>*>(&stop), link, idle_ms); !s.ok()) {
      return stop.load() ? Status(Errc::success) : s;
    }
    // A client that vanishes mid-request costs only its own answer.
    std::vector<std::byte> request;
    if (link->receive(request).ok()) (void)link->send(answer(table, request));
  }
  return Errc::success;
}

}  // namespace lapi::names
