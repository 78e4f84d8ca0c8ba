/* Buffers of gigabytes for the large-count programs. */
#ifndef LAPIS_TESTS_MPI_BIG_BUFFER_H_
#define LAPIS_TESTS_MPI_BIG_BUFFER_H_

#include <stdlib.h>
#include <sys/mman.h>

#include "check.h"

/* n bytes, aligned to 2 MiB and advised to use huge pages: the first touch
 * of each 4 KiB page is what such a program mostly spends (on a virtual
 * machine 4 GiB took 15 s in 4 KiB pages, 10 s in 2 MiB ones). */
static inline unsigned char* big_buffer(size_t n) {
  const size_t huge = (size_t)2 << 20;
  const size_t whole_pages = (n + huge - 1) / huge * huge; /* aligned_alloc wants a multiple */
  unsigned char* p = aligned_alloc(huge, whole_pages);
  CHECK(p != NULL);
#ifdef MADV_HUGEPAGE
  madvise(p, whole_pages, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
  return p;
}

#endif
