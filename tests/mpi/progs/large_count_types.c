/* The _c datatype constructors with counts, block lengths, strides and
 * displacements beyond INT_MAX (MPI 4.0: they take MPI_Count).
 *   large_count_types layouts  each constructor's size, bounds and large-count
 *                              envelope; a type whose blocks lie 3e9 bytes
 *                              apart packed, sent and received (pairs of ranks)
 *   large_count_types errors   what is still refused, and bad values' classes
 * No gigabytes of memory: the strided buffers are reserved, not touched. */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

static int rank, size;
static const MPI_Count kHuge = 3000000000L; /* past INT_MAX */

static void expect_bounds(MPI_Datatype t, MPI_Count size_want, MPI_Count lb_want,
                          MPI_Count extent_want, MPI_Count true_lb_want, MPI_Count true_extent_want) {
  MPI_Count sz = -1, lb = -1, extent = -1, tlb = -1, textent = -1;
  CHECK_OK(MPI_Type_size_c(t, &sz));
  CHECK_OK(MPI_Type_get_extent_c(t, &lb, &extent));
  CHECK_OK(MPI_Type_get_true_extent_c(t, &tlb, &textent));
  CHECK(sz == size_want);
  CHECK(lb == lb_want && extent == extent_want);
  CHECK(tlb == true_lb_want && textent == true_extent_want);
  /* the int queries cannot say it */
  int isz = 0;
  CHECK_OK(MPI_Type_size(t, &isz));
  CHECK(size_want > INT_MAX ? isz == MPI_UNDEFINED : isz == size_want);
}

/* The large counts MPI_Type_get_contents_c gives back. */
static void expect_counts(MPI_Datatype t, int combiner, MPI_Count n, const MPI_Count* want) {
  MPI_Count ni, na, nc, nd;
  int comb;
  CHECK_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
  CHECK(comb == combiner && nc == n && na == 0);
  int ints[4];
  MPI_Aint aints[1];
  MPI_Count counts[16];
  MPI_Datatype types[4];
  CHECK(n <= 16 && ni <= 4 && nd <= 4);
  CHECK_OK(MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, aints, counts, types));
  for (MPI_Count k = 0; k < n; ++k) CHECK(counts[k] == want[k]);
  for (MPI_Count k = 0; k < nd; ++k) {
    int x, y, z, dc;
    CHECK_OK(MPI_Type_get_envelope(types[k], &x, &y, &z, &dc));
    if (dc != MPI_COMBINER_NAMED) CHECK_OK(MPI_Type_free(&types[k]));
  }
}

static void commit_and_free(MPI_Datatype* t) {
  CHECK_OK(MPI_Type_commit(t));
  CHECK_OK(MPI_Type_free(t));
}

static void layouts(void) {
  MPI_Datatype t;
  /* vector: 3e9 blocks of one byte, two apart */
  CHECK_OK(MPI_Type_vector_c(kHuge, 1, 2, MPI_BYTE, &t));
  expect_bounds(t, kHuge, 0, 2 * kHuge - 1, 0, 2 * kHuge - 1);
  const MPI_Count v[3] = {kHuge, 1, 2};
  expect_counts(t, MPI_COMBINER_VECTOR, 3, v);
  commit_and_free(&t);
  /* vector: a block length past INT_MAX, a stride in old extents past INT_MAX */
  CHECK_OK(MPI_Type_vector_c(2, kHuge, kHuge + 8, MPI_INT, &t));
  expect_bounds(t, 2 * kHuge * 4, 0, (2 * kHuge + 8) * 4, 0, (2 * kHuge + 8) * 4);
  commit_and_free(&t);
  /* hvector: two 4-byte blocks 3e9 bytes apart */
  CHECK_OK(MPI_Type_create_hvector_c(2, 4, kHuge, MPI_BYTE, &t));
  expect_bounds(t, 8, 0, kHuge + 4, 0, kHuge + 4);
  const MPI_Count hv[3] = {2, 4, kHuge};
  expect_counts(t, MPI_COMBINER_HVECTOR, 3, hv);
  commit_and_free(&t);
  /* MPICH's type_large: hindexed blocks of 0, 1, 2 and the rest of ~9.4e9 chars */
  const MPI_Count total = 2346319872L * 4;
  const MPI_Count hl[4] = {0, 1, 2, total - 3}, hd[4] = {0, 0, 1, 3};
  CHECK_OK(MPI_Type_create_hindexed_c(4, hl, hd, MPI_CHAR, &t));
  expect_bounds(t, total, 0, total, 0, total);
  const MPI_Count hc[9] = {4, 0, 1, 2, total - 3, 0, 0, 1, 3};
  expect_counts(t, MPI_COMBINER_HINDEXED, 9, hc);
  commit_and_free(&t);
  /* indexed: a displacement of 3e9 ints */
  const MPI_Count il[2] = {1, 2}, id[2] = {0, kHuge};
  CHECK_OK(MPI_Type_indexed_c(2, il, id, MPI_INT, &t));
  expect_bounds(t, 12, 0, (kHuge + 2) * 4, 0, (kHuge + 2) * 4);
  commit_and_free(&t);
  /* indexed_block and hindexed_block: blocks of 3e9 */
  const MPI_Count bd[2] = {kHuge, 0};
  CHECK_OK(MPI_Type_create_indexed_block_c(2, kHuge, bd, MPI_BYTE, &t));
  expect_bounds(t, 2 * kHuge, 0, 2 * kHuge, 0, 2 * kHuge);
  const MPI_Count ib[4] = {2, kHuge, kHuge, 0};
  expect_counts(t, MPI_COMBINER_INDEXED_BLOCK, 4, ib);
  commit_and_free(&t);
  const MPI_Count hbd[2] = {0, 2 * kHuge};
  CHECK_OK(MPI_Type_create_hindexed_block_c(2, kHuge, hbd, MPI_SHORT, &t));
  expect_bounds(t, 4 * kHuge, 0, 4 * kHuge, 0, 4 * kHuge);
  commit_and_free(&t);
  /* struct: a char at 0 and 3e9 doubles from 3e9 bytes on */
  const MPI_Count sl[2] = {1, kHuge}, sd[2] = {0, kHuge};
  const MPI_Datatype st[2] = {MPI_CHAR, MPI_DOUBLE};
  CHECK_OK(MPI_Type_create_struct_c(2, sl, sd, st, &t));
  expect_bounds(t, 1 + 8 * kHuge, 0, 9 * kHuge, 0, 9 * kHuge);
  const MPI_Count sc[5] = {2, 1, kHuge, 0, kHuge};
  expect_counts(t, MPI_COMBINER_STRUCT, 5, sc);
  commit_and_free(&t);
  /* subarray: 2 bytes near the end of a 3e9-byte array */
  const MPI_Count sz[1] = {kHuge}, sub[1] = {2}, start[1] = {kHuge - 5};
  CHECK_OK(MPI_Type_create_subarray_c(1, sz, sub, start, MPI_ORDER_C, MPI_BYTE, &t));
  expect_bounds(t, 2, 0, kHuge, kHuge - 5, 2);
  const MPI_Count subc[3] = {kHuge, 2, kHuge - 5};
  expect_counts(t, MPI_COMBINER_SUBARRAY, 3, subc);
  commit_and_free(&t);
  /* 2^33 instances of a pair type (two element sizes): built and committed at
   * once, element counts and external32 size from one row of runs */
  const MPI_Count many = (MPI_Count)1 << 33;
  CHECK_OK(MPI_Type_contiguous_c(many, MPI_DOUBLE_INT, &t));
  MPI_Aint pair_lb, pair_extent;
  CHECK_OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &pair_lb, &pair_extent));
  expect_bounds(t, 12 * many, 0, pair_extent * many, 0, pair_extent * (many - 1) + 12);
  MPI_Status status;
  MPI_Count elements = -1;
  CHECK_OK(MPI_Status_set_elements_c(&status, t, 3)); /* double, int, double */
  CHECK_OK(MPI_Get_elements_c(&status, MPI_BYTE, &elements));
  CHECK(elements == 20);
  CHECK_OK(MPI_Get_elements_c(&status, t, &elements));
  CHECK(elements == 3);
  MPI_Count ext32 = -1;
  CHECK_OK(MPI_Pack_external_size_c("external32", 1, t, &ext32));
  CHECK(ext32 == 12 * many);
  CHECK_OK(MPI_Type_free(&t));
  /* resized: bounds past INT_MAX */
  CHECK_OK(MPI_Type_create_resized_c(MPI_INT, -kHuge, 2 * kHuge, &t));
  expect_bounds(t, 4, -kHuge, 2 * kHuge, 0, 4);
  commit_and_free(&t);
}

/* An hvector of two 4-byte blocks 3e9 bytes apart, over a reserved (not
 * touched) mapping: packed, and sent and received between rank pairs. */
static void strided_far(void) {
  const size_t span = (size_t)kHuge + 4;
  unsigned char* mem = mmap(NULL, span, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(mem != MAP_FAILED);
  MPI_Datatype t;
  CHECK_OK(MPI_Type_create_hvector_c(2, 4, kHuge, MPI_BYTE, &t));
  CHECK_OK(MPI_Type_commit(&t));
  const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, (unsigned char)(8 + rank)};
  memcpy(mem, want, 4);
  memcpy(mem + kHuge, want + 4, 4);
  /* packed: the two blocks side by side */
  unsigned char packed[8] = {0};
  MPI_Count pos = 0, need = 0;
  CHECK_OK(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &need));
  CHECK(need >= 8);
  CHECK_OK(MPI_Pack_c(mem, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == 8 && memcmp(packed, want, 8) == 0);
  /* pairs: the even rank sends its type, the odd one receives it as 8 bytes and
   * answers into the even one's type */
  const int peer = rank ^ 1;
  if (peer < size) {
    unsigned char got[8] = {0};
    if (rank % 2 == 0) {
      CHECK_OK(MPI_Send_c(mem, 1, t, peer, 0, MPI_COMM_WORLD));
      memset(mem, 0, 4);
      memset(mem + kHuge, 0, 4);
      MPI_Status st;
      CHECK_OK(MPI_Recv_c(mem, 1, t, peer, 1, MPI_COMM_WORLD, &st));
      MPI_Count n = -1;
      CHECK_OK(MPI_Get_count_c(&st, t, &n));
      CHECK(n == 1);
      memcpy(got, mem, 4);
      memcpy(got + 4, mem + kHuge, 4);
      const unsigned char back[8] = {1, 2, 3, 4, 5, 6, 7, (unsigned char)(8 + peer)};
      CHECK(memcmp(got, back, 8) == 0);
    } else {
      CHECK_OK(MPI_Recv_c(got, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      const unsigned char sent[8] = {1, 2, 3, 4, 5, 6, 7, (unsigned char)(8 + peer)};
      CHECK(memcmp(got, sent, 8) == 0);
      CHECK_OK(MPI_Send_c(want, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
    }
  }
  CHECK_OK(MPI_Type_free(&t));
  CHECK(munmap(mem, span) == 0);
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_vector_c(2, -kHuge, 1, MPI_INT, &t), MPI_ERR_ARG);
  /* a stride whose bytes overflow 64 bits; a size past 2^61 bytes */
  CHECK_CLASS(MPI_Type_vector_c(2, 1, (MPI_Count)1 << 62, MPI_DOUBLE, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_contiguous_c((MPI_Count)1 << 60, MPI_DOUBLE, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_create_hvector_c(kHuge, kHuge, 1, MPI_DOUBLE, &t), MPI_ERR_ARG);
  const MPI_Count lens[2] = {1, -kHuge}, disps[2] = {0, kHuge};
  CHECK_CLASS(MPI_Type_indexed_c(2, lens, disps, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_hindexed_c(2, NULL, disps, MPI_INT, &t), MPI_ERR_ARG);
  const int ione[2] = {1, 1}; /* the int forms share the check (they took NULL lengths as 0) */
  CHECK_CLASS(MPI_Type_indexed(2, NULL, ione, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_hindexed_block_c(-kHuge, 1, disps, MPI_INT, &t), MPI_ERR_COUNT);
  const MPI_Datatype types[2] = {MPI_INT, (MPI_Datatype)0x12345};
  const MPI_Count ones[2] = {1, 1};
  CHECK_CLASS(MPI_Type_create_struct_c(2, ones, disps, types, &t), MPI_ERR_TYPE);
  const MPI_Count sz[1] = {kHuge}, sub[1] = {kHuge + 1}, zero[1] = {0};
  CHECK_CLASS(MPI_Type_create_subarray_c(1, sz, sub, zero, MPI_ORDER_C, MPI_BYTE, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_subarray_c(1, sz, zero, zero, 7, MPI_BYTE, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, kHuge, &t), MPI_ERR_TYPE);
  /* darray still builds through the int form: global sizes must fit an int */
  const int one[1] = {1}, block[1] = {MPI_DISTRIBUTE_BLOCK}, dflt[1] = {MPI_DISTRIBUTE_DFLT_DARG};
  CHECK_CLASS(MPI_Type_create_darray_c(1, 0, 1, sz, block, dflt, one, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_COUNT);
  CHECK(t == MPI_DATATYPE_NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "layouts";
  if (strcmp(what, "layouts") == 0) {
    layouts();
    strided_far();
  } else if (strcmp(what, "errors") == 0) {
    errors();
  } else {
    CHECK(!"unknown mode");
  }
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
