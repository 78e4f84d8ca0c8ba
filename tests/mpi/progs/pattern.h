/* A byte pattern per seed, for programs that check every byte of what
 * they receive. */
#ifndef LAPIS_TESTS_MPI_PATTERN_H_
#define LAPIS_TESTS_MPI_PATTERN_H_

#include <stddef.h>

static void fill(unsigned char* buf, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) buf[i] = (unsigned char)(seed * 31 + i * 7);
}

static int matches(const unsigned char* buf, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) {
    if (buf[i] != (unsigned char)(seed * 31 + i * 7)) return 0;
  }
  return 1;
}

#endif /* LAPIS_TESTS_MPI_PATTERN_H_ */
