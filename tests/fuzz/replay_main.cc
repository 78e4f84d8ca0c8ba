// The gcc build's stand-in for libFuzzer: `harness FILE_OR_DIR...` runs each
// input once (libFuzzer's own flags, starting with '-', are ignored).

#include <cstdio>
#include <string>

#include "tests/fuzz/replay.hpp"

int main(int argc, char** argv) {
  long total = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    const long ran = lapis::fuzz::replay(argv[i]);
    if (ran < 0) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 2;
    }
    total += ran;
  }
  std::printf("ran %ld inputs\n", total);
  return 0;
}
