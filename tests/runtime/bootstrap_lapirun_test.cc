// process_bootstrap() under lapirun (several job sizes, more ranks than cores) and without any
// launcher (singleton).
#include <doctest/doctest.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <future>
#include <string>

#include "tests/runtime/subprocess.hpp"

namespace {

using namespace lapis::runtime::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int count_entries(const std::string& dir) {
  int count = 0;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") ++count;
  }
  ::closedir(d);
  return count;
}

}  // namespace

TEST_CASE("collectives under lapirun, 1 to 8 ranks") {
  for (int n : {1, 2, 4, 8}) {
    CAPTURE(n);
    const Outcome outcome = run({{lapirun_path(), "-n", std::to_string(n), probe_path(), "check", std::to_string(n), "lapirun"}});
    INFO(describe(outcome));
    CHECK(outcome.status == 0);
    for (int r = 0; r < n; ++r) {
      CHECK(contains(outcome.out, "rank " + std::to_string(r) + " of " + std::to_string(n) + ": ok (lapirun)"));
    }
  }
}

TEST_CASE("two jobs at once use separate rendezvous") {
  auto job = [] { return run({{lapirun_path(), "-n", "3", probe_path(), "check", "3", "lapirun"}}); };
  auto first = std::async(std::launch::async, job);
  const Outcome second = job();
  const Outcome first_outcome = first.get();
  INFO(describe(first_outcome));
  INFO(describe(second));
  CHECK(first_outcome.status == 0);
  CHECK(second.status == 0);
}

TEST_CASE("without a launcher the bootstrap is a singleton") {
  const Outcome outcome = run({{probe_path(), "check", "1", "singleton"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "rank 0 of 1: ok (singleton)"));
}

TEST_CASE("a late process with a rank's variables cannot join") {
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "second-process"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "rank 0: second process rejected"));
  CHECK(contains(outcome.out, "rank 1: second process rejected"));
}

TEST_CASE("a second hello for a rank that already joined is refused") {
  std::string dir = "/tmp/lapis-rt-XXXXXX";
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  const std::string fifo = dir + "/go";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "double-hello", fifo}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "already joined the rendezvous"));
  CHECK(contains(outcome.out, "rank 0: second hello refused"));
  ::unlink(fifo.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("ranks calling different collectives all get an error") {
  const Outcome outcome = run({{lapirun_path(), "-n", "4", probe_path(), "mismatch"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  for (int r = 0; r < 4; ++r) CHECK(contains(outcome.out, "rank " + std::to_string(r) + ": BootstrapError:"));
}

TEST_CASE("the rendezvous socket is abstract: a launcher leaves no file, even when killed") {
  std::string base = "/tmp/lapis-rt-XXXXXX";
  REQUIRE(::mkdtemp(base.data()) != nullptr);
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "env", "LAPIS_RENDEZVOUS"}, {{"TMPDIR", base}}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "LAPIS_RENDEZVOUS=@lapirun-"));
  CHECK(count_entries(base) == 0);
  // SIGKILLed while a rank has not joined yet (the ranks sleep without touching the bootstrap).
  const Outcome killed = run({{lapirun_path(), "-n", "2", probe_path(), "sleep"}, {{"TMPDIR", base}}, 0.5});
  CHECK(killed.timed_out);
  CHECK(count_entries(base) == 0);
  ::rmdir(base.c_str());
}
