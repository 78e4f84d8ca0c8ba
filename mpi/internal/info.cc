#include "mpi/internal/info.hpp"

#include <unistd.h>

#include <climits>
#include <string>

#include "mpi.h"

namespace mpi {

InfoPtr make_env_info(int world_size, int thread_level) {
  auto info = std::make_shared<Info>();
  info->set("maxprocs", std::to_string(world_size));
  info->set("soft", std::to_string(world_size));
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) info->set("host", host);
  char cwd[PATH_MAX] = {};
  if (getcwd(cwd, sizeof(cwd)) != nullptr) info->set("wdir", cwd);
  static const char* const kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                        "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  if (thread_level >= MPI_THREAD_SINGLE && thread_level <= MPI_THREAD_MULTIPLE) {
    info->set("thread_level", kLevels[thread_level - MPI_THREAD_SINGLE]);
  }
  return info;
}

InfoPtr make_start_info(int world_size, int argc, char** argv) {
  InfoPtr info = make_env_info(world_size, 0);
  if (argc > 0 && argv[0] != nullptr) {
    info->set("command", argv[0]);
    std::string args;
    for (int i = 1; i < argc && argv[i] != nullptr; ++i) args += (i > 1 ? " " : "") + std::string(argv[i]);
    if (!args.empty()) info->set("argv", args);
  }
  return info;
}

}  // namespace mpi
