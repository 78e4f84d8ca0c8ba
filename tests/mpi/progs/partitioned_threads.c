/* Partitioned sends under MPI_THREAD_MULTIPLE: the main thread starts a
 * partitioned send around the ring and waits for it (MPI_Wait, then
 * MPI_Waitall) while a second thread marks its partitions ready one by one.
 * The wait must let that thread in and return once the last partition went
 * (at lower thread levels it is refused: partitioned.c). Several epochs,
 * every byte checked. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "check.h"

enum { kPartitions = 16, kCount = 256, kEpochs = 20 };

static int sbuf[kPartitions * kCount], rbuf[kPartitions * kCount];
static MPI_Request sreq;
static atomic_int go; /* epoch number the marking thread may work on */

static void* mark_partitions(void* arg) {
  (void)arg;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    while (atomic_load(&go) < epoch) sched_yield();
    /* Reverse order: the send can only go with partition 0, the last. */
    for (int p = kPartitions - 1; p >= 0; --p) CHECK_OK(MPI_Pready(p, sreq));
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request rreq;
  CHECK_OK(MPI_Precv_init(rbuf, kPartitions, kCount, MPI_INT, prev, 4, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &rreq));
  CHECK_OK(MPI_Psend_init(sbuf, kPartitions, kCount, MPI_INT, next, 4, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &sreq));
  pthread_t marker;
  CHECK(pthread_create(&marker, NULL, mark_partitions, NULL) == 0);
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    for (int i = 0; i < kPartitions * kCount; ++i) sbuf[i] = rank * 1000000 + epoch * 10000 + i;
    CHECK_OK(MPI_Start(&rreq));
    CHECK_OK(MPI_Start(&sreq));
    atomic_store(&go, epoch); /* the marker starts now, while this thread waits */
    if (epoch % 2) {
      CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    } else {
      MPI_Request both[2] = {sreq, rreq};
      CHECK_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < kPartitions * kCount; ++i) {
      CHECK(rbuf[i] == prev * 1000000 + epoch * 10000 + i);
    }
    /* Nobody reuses sbuf for the next epoch before every rank received. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK(pthread_join(marker, NULL) == 0);
  CHECK_OK(MPI_Request_free(&sreq));
  CHECK_OK(MPI_Request_free(&rreq));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
