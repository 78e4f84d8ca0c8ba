// Jobs that connect, in the core: two contexts of one process, each a job of one task,
// join each other's task (Context::join_tasks) and Amsend, Put, Get and Rmw to it; each sees
// the other as its task 1, whatever the other numbers it. Ports and links (lapi/link.hpp):
// a connection must prove the port's secret; bad names, closed ports and dead links are
// errors naming the problem.
#include <doctest/doctest.h>

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/link.hpp"
#include "lapi/names.hpp"
#include "tests/core/lapi_ok.hpp"

namespace {

struct Inbox {
  std::vector<std::byte> data;
  lapi::TaskId src = 99;
  std::uint64_t header = 0;
};

lapi::Landing land(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto* inbox = static_cast<Inbox*>(info.handler_arg);
  inbox->src = info.src;
  std::memcpy(&inbox->header, info.uhdr, sizeof inbox->header);
  inbox->data.assign(info.data_len, std::byte{0});
  return {inbox->data.data(), nullptr, nullptr, nullptr};
}

// Waits for `c` on `mine`, running both contexts (each is polled only when called).
void wait_both(lapi::Context& mine, lapi::Context& other, lapi::Counter& c, int value = 1) {
  while (c.get() < value) {
    LAPI_OK(mine.probe());
    LAPI_OK(other.probe());
  }
  int left = 0;
  LAPI_OK(mine.waitcntr(c, value, &left));
}

std::vector<std::vector<std::byte>> cards(const std::vector<std::byte>& one) { return {one}; }

lapi::Counters completion(lapi::Counter& c) { return {.target = {}, .origin = nullptr, .completion = &c}; }

// `leaver` leaves its task `task` (1 unless said) while `other` runs its progress on a thread.
lapi::Status leave_answered(lapi::Context& leaver, lapi::Context& other, lapi::TaskId task = 1) {
  std::atomic<bool> left{false};
  std::thread answer([&] {
    while (!left.load()) (void)other.probe();
  });
  const lapi::Status s = leaver.leave_tasks(task, 1);
  left.store(true);
  answer.join();
  return s;
}

std::unique_ptr<lapi::Context> start() {
  std::unique_ptr<lapi::Context> ctx;
  LAPI_OK(lapi::Context::init(lapi::Config{}, ctx));
  return ctx;
}

}  // namespace

TEST_CASE("two single-task contexts join each other and move data both ways") {
  auto a = start();
  auto b = start();
  Inbox at_a, at_b;
  LAPI_OK(a->register_handler(1, land, &at_a));
  LAPI_OK(b->register_handler(1, land, &at_b));

  // Each numbers the other after its own tasks (1), and learns only after joining how the
  // other numbered it.
  std::vector<std::byte> card_a, card_b;
  LAPI_OK(a->join_card(card_a));
  LAPI_OK(b->join_card(card_b));
  lapi::TaskId first_a = 0, first_b = 0;
  LAPI_OK(a->join_tasks(cards(card_b), first_a));
  LAPI_OK(b->join_tasks(cards(card_a), first_b));
  CHECK(first_a == 1);
  CHECK(first_b == 1);
  LAPI_OK(a->name_joined(first_a, std::vector<lapi::TaskId>{first_b}));
  LAPI_OK(b->name_joined(first_b, std::vector<lapi::TaskId>{first_a}));
  CHECK(a->num_tasks() == 1);
  CHECK(a->num_peers() == 2);
  lapi::PathInfo path;
  LAPI_OK(a->path_of(1, path));
  CHECK(path.path == lapi::Path::ucx);
  CHECK_FALSE(path.same_host);  // a task of another job: where it runs is not known
  // Ids are each context's own (both call the other 1); identities are the same on both sides.
  CHECK(a->task_uid(0) != 0);
  CHECK(a->task_uid(0) != b->task_uid(0));
  CHECK(a->task_uid(1) == b->task_uid(0));
  CHECK(b->task_uid(1) == a->task_uid(0));
  CHECK(a->task_uid(2) == 0);
  lapi::TaskId found = 99;
  CHECK(a->task_of_uid(b->task_uid(0), found));
  CHECK(found == 1);
  CHECK(a->task_of_uid(a->task_uid(0), found));
  CHECK(found == 0);
  CHECK_FALSE(a->task_of_uid(0, found));
  CHECK_FALSE(a->task_of_uid(a->task_uid(0) + 1, found));

  for (std::size_t len : {std::size_t{0}, std::size_t{64}, std::size_t{100000}, std::size_t{1} << 21}) {
    CAPTURE(len);
    std::vector<std::byte> payload(len);
    for (std::size_t i = 0; i < len; ++i) payload[i] = static_cast<std::byte>(i * 7 + len);
    lapi::Counter done;
    const std::uint64_t header = 0xabc0000 + len;
    LAPI_OK(a->amsend(1, 1, &header, sizeof header, payload.data(), len, completion(done)));
    wait_both(*a, *b, done);
    CHECK(at_b.src == 1);  // b's number for a
    CHECK(at_b.header == header);
    CHECK(at_b.data == payload);
    lapi::Counter back;
    LAPI_OK(b->amsend(1, 1, &header, sizeof header, payload.data(), len, completion(back)));
    wait_both(*b, *a, back);
    CHECK(at_a.src == 1);
    CHECK(at_a.data == payload);
  }

  // One-sided: b's registered memory, from a.
  std::vector<std::uint64_t> window(64, 0);
  LAPI_OK(b->register_memory(window.data(), window.size() * sizeof(std::uint64_t)));
  const auto base = reinterpret_cast<std::uint64_t>(window.data());
  std::vector<std::uint64_t> src(64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = i * i + 5;
  lapi::Counter put_done;
  {
    // The first Put fetches b's key, blocking a: b answers from a thread of its own meanwhile.
    std::atomic<bool> put_returned{false};
    std::thread answer([&] {
      while (!put_returned.load()) (void)b->probe();
    });
    const lapi::Status put = a->put(1, 64 * sizeof(std::uint64_t), base, src.data(), completion(put_done));
    put_returned.store(true);
    answer.join();
    LAPI_OK(put);
  }
  wait_both(*a, *b, put_done);
  CHECK(window == src);
  std::vector<std::uint64_t> got(64, 0);
  lapi::Counter get_done;
  LAPI_OK(a->get(1, 64 * sizeof(std::uint64_t), base, got.data(), {}, &get_done));
  wait_both(*a, *b, get_done);
  CHECK(got == src);
  std::int64_t prev = 0;
  lapi::Counter rmw_done;
  LAPI_OK(a->rmw64(lapi::RmwOp::fetch_and_add, 1, base, 10, 0, &prev, &rmw_done));
  wait_both(*a, *b, rmw_done);
  CHECK(prev == 5);
  CHECK(window[0] == 15);

  // Leaving: operations naming the task are refused from then on; ids are not reused. The
  // flush before the endpoint closes needs the other side's progress, as in
  // MPI_Comm_disconnect, where both leave at once.
  LAPI_OK(leave_answered(*a, *b));
  const lapi::Status after = a->amsend(1, 1, nullptr, 0, nullptr, 0);
  CHECK(after.code() == lapi::Errc::tgt_purged);
  CHECK_FALSE(a->task_of_uid(b->task_uid(0), found));  // left: no longer known here
  CHECK(a->leave_tasks(0, 1).code() == lapi::Errc::tgt);  // a's own job's task
  CHECK(a->leave_tasks(1, 5).code() == lapi::Errc::tgt);
  CHECK(a->num_peers() == 2);
  LAPI_OK(leave_answered(*b, *a));
  LAPI_OK(b->deregister_memory(window.data()));
  LAPI_OK(a->term());
  LAPI_OK(b->term());
}

TEST_CASE("join_tasks refuses cards that are not join cards; name_joined only joined tasks") {
  auto a = start();
  std::vector<std::byte> card;
  LAPI_OK(a->join_card(card));
  lapi::TaskId first = 0;
  CHECK(a->join_tasks(cards(std::vector<std::byte>(3)), first).code() == lapi::Errc::set_val);
  std::vector<std::byte> truncated(card.begin(), card.begin() + static_cast<long>(card.size() / 2));
  CHECK(a->join_tasks(cards(truncated), first).code() == lapi::Errc::set_val);
  CHECK(a->join_tasks(std::vector<std::vector<std::byte>>{}, first).code() == lapi::Errc::parm_null);
  CHECK(a->num_peers() == 1);
  const std::vector<lapi::TaskId> one{0};
  CHECK(a->name_joined(0, one).code() == lapi::Errc::tgt);  // its own job's task
  CHECK(a->name_joined(1, one).code() == lapi::Errc::tgt);  // nothing joined
  auto b = start();
  std::vector<std::byte> card_b;
  LAPI_OK(b->join_card(card_b));
  LAPI_OK(a->join_tasks(cards(card_b), first));
  CHECK(a->name_joined(first, std::vector<lapi::TaskId>{0, 0}).code() == lapi::Errc::tgt);
  CHECK(a->name_joined(first, std::vector<lapi::TaskId>{}).code() == lapi::Errc::tgt);
  LAPI_OK(a->name_joined(first, one));
  LAPI_OK(a->leave_tasks(first, 1));
  LAPI_OK(a->term());
  LAPI_OK(b->term());
}

// Two joins in flight at one task (MPI_Comm_spawn from two threads, which the MPI layer
// serialises call by call): both other jobs hold the same card of a, made before either
// join, and a joins them in the other order. Each join gets ids of its own, and messages
// name their sender as the receiver numbers it once name_joined told each side the other's
// numbering (when the card carried the id a would give, both said 1).
TEST_CASE("two joins in flight get ranges of their own, in either order") {
  auto a = start();
  auto b = start();
  auto c = start();
  Inbox at_a, at_b, at_c;
  LAPI_OK(a->register_handler(1, land, &at_a));
  LAPI_OK(b->register_handler(1, land, &at_b));
  LAPI_OK(c->register_handler(1, land, &at_c));
  std::vector<std::byte> card_a, card_b, card_c;
  LAPI_OK(a->join_card(card_a));
  LAPI_OK(b->join_card(card_b));
  LAPI_OK(c->join_card(card_c));
  lapi::TaskId a_b = 0, a_c = 0, b_a = 0, c_a = 0;
  LAPI_OK(a->join_tasks(cards(card_c), a_c));
  LAPI_OK(a->join_tasks(cards(card_b), a_b));
  CHECK(a_c == 1);
  CHECK(a_b == 2);
  CHECK(a->task_uid(a_b) == b->task_uid(0));
  CHECK(a->task_uid(a_c) == c->task_uid(0));
  LAPI_OK(b->join_tasks(cards(card_a), b_a));
  LAPI_OK(c->join_tasks(cards(card_a), c_a));
  LAPI_OK(a->name_joined(a_b, std::vector<lapi::TaskId>{b_a}));
  LAPI_OK(a->name_joined(a_c, std::vector<lapi::TaskId>{c_a}));
  LAPI_OK(b->name_joined(b_a, std::vector<lapi::TaskId>{a_b}));
  LAPI_OK(c->name_joined(c_a, std::vector<lapi::TaskId>{a_c}));

  const std::vector<std::byte> payload(100, std::byte{7});
  const std::uint64_t header = 42;
  for (auto [from, at, id_at_a] : {std::tuple{b.get(), &at_a, a_b}, std::tuple{c.get(), &at_a, a_c}}) {
    lapi::Counter done;
    LAPI_OK(from->amsend(1, 1, &header, sizeof header, payload.data(), payload.size(), completion(done)));
    wait_both(*from, *a, done);
    CHECK(at->src == id_at_a);
    CHECK(at->data == payload);
  }
  for (auto [to, id_at_a, at] : {std::tuple{b.get(), a_b, &at_b}, std::tuple{c.get(), a_c, &at_c}}) {
    lapi::Counter done;
    LAPI_OK(a->amsend(id_at_a, 1, &header, sizeof header, payload.data(), payload.size(), completion(done)));
    wait_both(*a, *to, done);
    CHECK(at->src == 1);  // b and c each number a 1
    CHECK(at->data == payload);
  }
  LAPI_OK(leave_answered(*a, *b, a_b));
  LAPI_OK(leave_answered(*a, *c, a_c));
  LAPI_OK(leave_answered(*b, *a, b_a));
  LAPI_OK(leave_answered(*c, *a, c_a));
  LAPI_OK(a->term());
  LAPI_OK(b->term());
  LAPI_OK(c->term());
}

TEST_CASE("ports: the secret is proved, bad and closed names are errors") {
  auto ctx = start();
  std::string name;
  LAPI_OK(ctx->open_port(name));
  CHECK(name.rfind("lapis-port:v1:127.0.0.1:", 0) == 0);  // a job on one host: loopback only

  // A wrong secret is dropped; the accept goes on and takes the right one.
  std::string wrong = name;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  std::unique_ptr<lapi::Link> served;
  lapi::Status accepted;
  std::thread acceptor([&] { accepted = lapi::PortTable::accept(name, nullptr, nullptr, served); });
  std::unique_ptr<lapi::Link> link;
  const lapi::Status refused = ctx->connect_link(wrong, link);
  CHECK(refused.code() == lapi::Errc::no_connectivity);
  CHECK(link == nullptr);
  LAPI_OK(ctx->connect_link(name, link));
  acceptor.join();
  LAPI_OK(accepted);
  // Messages both ways, larger than a socket's buffers.
  std::vector<std::byte> big(std::size_t{8} << 20, std::byte{7}), theirs;
  std::vector<std::byte> from_acceptor;
  std::thread other([&] { accepted = served->exchange(std::vector<std::byte>(5, std::byte{1}), from_acceptor); });
  LAPI_OK(link->exchange(big, theirs));
  other.join();
  LAPI_OK(accepted);
  CHECK(theirs == std::vector<std::byte>(5, std::byte{1}));
  CHECK(from_acceptor == big);
  // The other end gone: an error, not a hang.
  served.reset();
  CHECK(link->exchange(big, theirs).code() == lapi::Errc::bootstrap);

  LAPI_OK(ctx->close_port(name));
  CHECK(ctx->connect_link(name, link).code() == lapi::Errc::no_connectivity);
  CHECK(ctx->close_port(name).code() == lapi::Errc::set_val);
  std::unique_ptr<lapi::Link> none;
  CHECK(ctx->accept_link(name, none).code() == lapi::Errc::set_val);
  for (const char* bad : {"", "lapis-port:v1:", "lapis-port:v1:1.2.3:5:00", "lapis-port:v1:127.0.0.1:0:00",
                          "lapis-port:v1:127.0.0.1:80:xyz", "tcp://127.0.0.1:80"}) {
    CAPTURE(bad);
    const lapi::Status s = ctx->connect_link(bad, link);
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(std::string(s.message()).find("is not a Lapis port") != std::string::npos);
  }
  LAPI_OK(ctx->term());
}

TEST_CASE("a link over a socket pair: the two ends settle who speaks first") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  std::unique_ptr<lapi::Link> left, right;
  lapi::Status ls, rs;
  std::vector<std::byte> got_left, got_right;
  std::thread t([&] {
    rs = lapi::Link::over_socket(fds[1], right);
    if (rs.ok()) rs = right->exchange(std::vector<std::byte>(3, std::byte{2}), got_right);
  });
  ls = lapi::Link::over_socket(fds[0], left);
  if (ls.ok()) ls = left->exchange(std::vector<std::byte>(4, std::byte{9}), got_left);
  t.join();
  LAPI_OK(ls);
  LAPI_OK(rs);
  CHECK(got_left == std::vector<std::byte>(3, std::byte{2}));
  CHECK(got_right == std::vector<std::byte>(4, std::byte{9}));
  ::close(fds[0]);
  ::close(fds[1]);
  std::unique_ptr<lapi::Link> bad;
  CHECK(lapi::Link::over_socket(-1, bad).code() == lapi::Errc::set_val);
}

TEST_CASE("joining after term, or with LAPIS_CHECKSUM on, is refused") {
  {
    lapi::Config config;
    config.checksum = lapi::Checksum::crc32c;
    std::unique_ptr<lapi::Context> checked;
    LAPI_OK(lapi::Context::init(config, checked));
    std::vector<std::byte> card;
    LAPI_OK(checked->join_card(card));
    lapi::TaskId first = 0;
    const lapi::Status s = checked->join_tasks(cards(card), first);
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(std::string(s.message()).find("LAPIS_CHECKSUM") != std::string::npos);
    LAPI_OK(checked->term());
  }
  auto a = start();
  std::vector<std::byte> card;
  LAPI_OK(a->join_card(card));
  LAPI_OK(a->term());
  CHECK(a->join_card(card).code() == lapi::Errc::terminated);
  lapi::TaskId first = 0;
  CHECK(a->join_tasks(cards(card), first).code() == lapi::Errc::terminated);
}

TEST_CASE("a port on an interface without IPv4 is refused; an accept told to stop stops") {
  std::string name;
  const lapi::Status s = lapi::PortTable::open("nosuchif0", name);
  CHECK(s.code() == lapi::Errc::no_connectivity);
  CHECK(std::string(s.message()).find("nosuchif0") != std::string::npos);
  LAPI_OK(lapi::PortTable::open("", name));
  int polls = 0;
  std::unique_ptr<lapi::Link> link;
  const lapi::Status stopped = lapi::PortTable::accept(
      name, [](void* n) { return ++*static_cast<int*>(n) < 3; }, &polls, link);
  CHECK(stopped.code() == lapi::Errc::timeout);
  CHECK(polls == 3);
  CHECK(link == nullptr);
  LAPI_OK(lapi::PortTable::close(name));
}

TEST_CASE("the name service: requests, refusals, and no server") {
  ::unsetenv("LAPIS_NAME_SERVER");
  std::string port;
  CHECK(lapi::names::lookup("svc", port).code() == lapi::Errc::no_connectivity);
  CHECK(lapi::names::publish("", "p").code() == lapi::Errc::set_val);
  CHECK(lapi::names::publish("svc", "").code() == lapi::Errc::set_val);
  CHECK(lapi::names::unpublish(std::string(2000, 'x')).code() == lapi::Errc::set_val);
  std::string server;
  LAPI_OK(lapi::PortTable::open("", server));
  std::atomic<bool> stop{false};
  lapi::Status served;
  std::thread daemon([&] { served = lapi::names::serve(server, stop); });
  ::setenv("LAPIS_NAME_SERVER", server.c_str(), 1);
  LAPI_OK(lapi::names::publish("svc", "the-port"));
  CHECK(lapi::names::publish("svc", "another").code() == lapi::Errc::set_val);
  LAPI_OK(lapi::names::lookup("svc", port));
  CHECK(port == "the-port");
  LAPI_OK(lapi::names::unpublish("svc"));
  const lapi::Status gone = lapi::names::lookup("svc", port);
  CHECK(gone.code() == lapi::Errc::set_val);
  CHECK(std::string(gone.message()).find("not published") != std::string::npos);
  // The server sleeps in the kernel between requests (no periodic check): stop, then wake it.
  stop.store(true);
  LAPI_OK(lapi::PortTable::wake(server));
  daemon.join();
  LAPI_OK(served);
  LAPI_OK(lapi::PortTable::close(server));
  CHECK(lapi::PortTable::wake(server).code() == lapi::Errc::set_val);  // closed: not a port here
  CHECK(lapi::names::lookup("svc", port).code() == lapi::Errc::no_connectivity);  // nothing listens
  ::unsetenv("LAPIS_NAME_SERVER");
}
