// Every MPI function in mpi/api opens with an ApiCall, so a call made while
// another thread is inside MPI is refused instead of corrupting the engine
// (mpi/internal/api_call.hpp). Functions the standard lets any thread call
// at any time are the exceptions, listed here.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/launch.hpp"

TEST_CASE("every MPI function opens with an ApiCall") {
  const std::set<std::string> exempt = {
      "MPI_Initialized",  "MPI_Finalized",   "MPI_Query_thread", "MPI_Is_thread_main",
      "MPI_Get_version",  "MPI_Get_library_version", "MPI_Abort", "MPI_Error_string",
      "MPI_Error_class",
  };
  // MPI 4.0 lets threads initialise and finalise sessions at once at any level.
  const std::set<std::string> session_turns = {"MPI_Session_init", "MPI_Session_finalize"};
  const std::regex function(R"re(extern "C" (?:LAPIS_FLATTEN_HOT_CALL\s+)?int (MPI_\w+)\([^{]*\{\s*([^\n]*))re");
  int functions = 0;
  bool found_hot_call = false;
  const std::filesystem::path dir = lapis::testing::runfile("mpi/api");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (std::sregex_iterator it(source.begin(), source.end(), function), end; it != end; ++it) {
      const std::string name = (*it)[1];
      ++functions;
      if (name == "MPI_Isend") found_hot_call = true;
      if (exempt.contains(name)) continue;
      CAPTURE(entry.path().filename().string());
      CAPTURE(name);
      std::string first = (*it)[2];
      if (session_turns.contains(name)) {
        // They take their turn first (mpi/api/session.cc), then the ApiCall.
        CHECK(first == "const std::lock_guard turn(g_session_turns);");
        const std::size_t next = source.find('\n', static_cast<std::size_t>(it->position(2)));
        const std::size_t start = source.find_first_not_of(" ", next + 1);
        first = source.substr(start, source.find('\n', start) - start);
      }
      CHECK(first == "const ApiCall call(\"" + name + "\");");
    }
  }
  CHECK(functions > 100);  // the regex found the functions at all
  CHECK(found_hot_call);     // and those marked LAPIS_FLATTEN_HOT_CALL
}
