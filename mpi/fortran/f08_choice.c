/* mpi_f08's choice buffers (TYPE(*), DIMENSION(..)) as the C glue takes
 * them. gfortran hands a BIND(C) procedure a C descriptor of what the
 * program passed: a whole array, a scalar, or an array section with strides.
 * MPI treats a section as if its elements were contiguous (MPI 3.1,
 * 17.1.12), and the compiler makes no copy for an assumed-rank dummy, so
 * here a non-contiguous section becomes
 *   - a datatype that walks the section, when the buffer has its own count
 *     and dense datatype (point-to-point, Bcast, Pack, RMA origins): it works
 *     for nonblocking calls too, the data never moves;
 *   - else, in a blocking call, a contiguous copy, copied back afterwards
 *     (only the elements that changed: an input buffer may be read-only);
 *   - else (a nonblocking call with shared or per-rank counts) an
 *     MPI_ERR_BUFFER error naming the problem.
 * The generated procedures (gen_f08_impl.py) call lapis_f08_choice_in
 * before the glue and lapis_f08_choice_out after it. */
#include <ISO_Fortran_binding.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

/* MPICH's MPI_IN_PLACE / MPI_BOTTOM objects to Lapis' (mpich_f08_objects.c). */
void *lapis_f08_choice(void *p);

/* Matches TYPE(lapis_f08_choice_t) in gen_f08_impl.py. */
typedef struct {
  void *addr;           /* the buffer the glue gets */
  int64_t count;        /* and its count and datatype, when typed */
  MPI_Fint datatype;
  MPI_Fint made_type;   /* a datatype made here (freed by _out), or 0 */
  void *copy;           /* a contiguous copy (copied back, freed by _out), or NULL */
  MPI_Fint state;       /* 0 until _in succeeded */
} LapisF08Choice;

enum { kTyped = 1, kBlocking = 2, kAddress = 4 };

/* Whether the descriptor's elements follow each other in memory. An
 * assumed-size array (last extent -1) is contiguous by definition. */
static int contiguous(const CFI_cdesc_t *d) {
  CFI_index_t expected = (CFI_index_t)d->elem_len;
  for (int i = 0; i < d->rank; ++i) {
    const CFI_index_t extent = d->dim[i].extent;
    if (extent <= 0) return 1; /* empty, or assumed-size */
    if (extent > 1 && d->dim[i].sm != expected) return 0;
    expected *= extent;
  }
  return 1;
}

static size_t elements(const CFI_cdesc_t *d) {
  size_t n = 1;
  for (int i = 0; i < d->rank; ++i) n *= (size_t)d->dim[i].extent;
  return n;
}

/* The byte offset of the k-th element (array element order) from base_addr. */
static ptrdiff_t offset_of(const CFI_cdesc_t *d, size_t k) {
  ptrdiff_t off = 0;
  for (int i = 0; i < d->rank; ++i) {
    const size_t extent = (size_t)d->dim[i].extent;
    off += (ptrdiff_t)(k % extent) * d->dim[i].sm;
    k /= extent;
  }
  return off;
}

/* MPI_ERR_BUFFER through MPI_COMM_WORLD's handler (the call's communicator
 * is not known here), saying why unless errors are returned. */
static int refuse(const char *why) {
  MPI_Errhandler handler;
  if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler) == MPI_SUCCESS) {
    if (handler != MPI_ERRORS_RETURN) {
      fprintf(stderr, "Lapis MPI: a non-contiguous array section as an mpi_f08 buffer: %s\n",
              why);
    }
    MPI_Errhandler_free(&handler);
  }
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER);
  return MPI_ERR_BUFFER;
}

/* A datatype's size when its instances are dense (no gaps, lower bound 0),
 * else 0 (also for an invalid datatype: the real call reports it, under its
 * own name). In the library (mpi/api/type_query.cc): asking through MPI
 * calls would raise errors on the way. */
MPI_Count lapis_f_type_dense_size(MPI_Datatype type);

/* count instances of `type` laid over the section's elements, `per` of them
 * to an element, as one instance of a new committed datatype (*made). The
 * whole section: nested hvectors, one per dimension; a part of it: an
 * hindexed list of its first elements. */
static int section_type(const CFI_cdesc_t *d, int64_t count, MPI_Datatype type, int64_t per,
                        MPI_Datatype *made) {
  const size_t n = elements(d);
  int rc = MPI_SUCCESS;
  if ((uint64_t)count == (uint64_t)per * n) {
    MPI_Datatype inner = type, next;
    if (per > 1) rc = MPI_Type_contiguous((int)per, type, &inner);
    for (int i = 0; rc == MPI_SUCCESS && i < d->rank; ++i) {
      rc = MPI_Type_create_hvector((int)d->dim[i].extent, 1, d->dim[i].sm, inner, &next);
      if (inner != type) MPI_Type_free(&inner);
      inner = next;
    }
    *made = inner;
  } else {
    const size_t blocks = (size_t)((count + per - 1) / per);
    int *lengths = malloc(blocks * sizeof *lengths);
    MPI_Aint *displs = malloc(blocks * sizeof *displs);
    if (lengths == NULL || displs == NULL) {
      free(lengths);
      free(displs);
      return MPI_ERR_NO_MEM;
    }
    for (size_t k = 0; k < blocks; ++k) {
      lengths[k] = (int)per;
      displs[k] = offset_of(d, k);
    }
    lengths[blocks - 1] = (int)(count - (int64_t)(blocks - 1) * per);
    rc = MPI_Type_create_hindexed((int)blocks, lengths, displs, type, made);
    free(lengths);
    free(displs);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(made);
  return rc;
}

/* Copies the section to or from a contiguous buffer; back: only elements
 * that differ are written. */
static void copy_section(const CFI_cdesc_t *d, char *flat, int back) {
  const size_t n = elements(d), len = d->elem_len;
  char *base = d->base_addr;
  for (size_t k = 0; k < n; ++k) {
    char *element = base + offset_of(d, k);
    if (!back) {
      memcpy(flat + k * len, element, len);
    } else if (memcmp(element, flat + k * len, len) != 0) {
      memcpy(element, flat + k * len, len);
    }
  }
}

int lapis_f08_choice_in(CFI_cdesc_t *buf, int64_t count, MPI_Fint datatype, int mode,
                        LapisF08Choice *c);
int lapis_f08_choice_in(CFI_cdesc_t *buf, int64_t count, MPI_Fint datatype, int mode,
                        LapisF08Choice *c) {
  *c = (LapisF08Choice){lapis_f08_choice(buf->base_addr), count, datatype, 0, NULL, 1};
  if ((mode & kAddress) || contiguous(buf)) return MPI_SUCCESS;
  if ((mode & kTyped) && count == 0) return MPI_SUCCESS;
  const MPI_Count size = (mode & kTyped) ? lapis_f_type_dense_size((MPI_Datatype)datatype) : 0;
  if (size > 0 && buf->elem_len % (size_t)size == 0) {
    const int64_t per = (int64_t)(buf->elem_len / (size_t)size);
    if (count < 0 || (uint64_t)count > (uint64_t)per * elements(buf)) {
      return refuse("the count and datatype describe more data than the section holds");
    }
    MPI_Datatype made = MPI_DATATYPE_NULL;
    const int rc = section_type(buf, count, (MPI_Datatype)datatype, per, &made);
    if (rc != MPI_SUCCESS) return rc;
    *c = (LapisF08Choice){buf->base_addr, 1, (MPI_Fint)made, (MPI_Fint)made, NULL, 1};
    return MPI_SUCCESS;
  }
  if (!(mode & kBlocking)) {
    return refuse("a nonblocking call whose count is shared or per rank, or whose datatype "
                  "has gaps, needs a contiguous buffer (copy the section, or describe it "
                  "with a datatype)");
  }
  c->copy = malloc(elements(buf) * buf->elem_len + 1);
  if (c->copy == NULL) return refuse("no memory for a contiguous copy of the section");
  copy_section(buf, c->copy, 0);
  c->addr = c->copy;
  return MPI_SUCCESS;
}

void lapis_f08_choice_out(CFI_cdesc_t *buf, LapisF08Choice *c);
void lapis_f08_choice_out(CFI_cdesc_t *buf, LapisF08Choice *c) {
  if (!c->state) return;
  if (c->made_type != 0) {
    MPI_Datatype made = (MPI_Datatype)c->made_type;
    MPI_Type_free(&made); /* a pending operation keeps its own reference */
  }
  if (c->copy != NULL) {
    copy_section(buf, c->copy, 1);
    free(c->copy);
  }
  c->state = 0;
}
