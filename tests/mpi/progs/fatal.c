/* Jobs that must end with a non-zero status (argv[1] picks the case):
 *   bad-rank     the last rank sends to a bad rank under MPI_ERRORS_ARE_FATAL
 *   before-init  MPI_Send before MPI_Init
 *   abort        the last rank calls MPI_Abort while the others block
 *   truncate     rank 0 receives a too-long message (fatal handler)
 *   exit-in-recv     the last rank exits 0 without MPI_Finalize while rank 0 waits in MPI_Recv
 *   exit-in-finalize the last rank exits 0 without MPI_Finalize; the others call MPI_Finalize
 *   exit-before-init every rank prints "pid P job J"; the last waits until every other rank's
 *                    shared-memory inbox exists, then exits 0 before MPI_Init, so the others'
 *                    MPI_Init fails after their inboxes exist
 *   killed-in-init   2 ranks: rank 0 prints "pid P job J" and enters MPI_Init; rank 1 waits until
 *                    rank 0's inbox exists in /dev/shm, then SIGKILLs it (a crash mid-Init) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, kill */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Processes of this job with files in /dev/shm (their inboxes, made inside MPI_Init): how
 * many (pid 0), or whether `pid` is one of them. */
static int shm_job_pids(int pid) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "lapis-%s-", getenv("LAPIS_JOB_ID"));
  const size_t len = strlen(prefix);
  int pids[64], n = 0;
  DIR* dir = opendir("/dev/shm");
  if (dir == NULL) exit(2);
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    if (strncmp(e->d_name, prefix, len) != 0) continue;
    const int p = atoi(e->d_name + len);
    int seen = p <= 0;
    for (int i = 0; i < n && !seen; ++i) seen = pids[i] == p;
    if (!seen && n < 64) pids[n++] = p;
  }
  closedir(dir);
  if (pid == 0) return n;
  for (int i = 0; i < n; ++i) {
    if (pids[i] == pid) return 1;
  }
  return 0;
}

/* Waits for `path` to hold a pid (rank 0 writes it), then for rank 0's
 * shared-memory inbox; kills rank 0 inside MPI_Init. */
static void kill_rank0_in_init(const char* path) {
  int pid = 0;
  while (pid == 0) {
    FILE* f = fopen(path, "r");
    if (f != NULL) {
      if (fscanf(f, "%d", &pid) != 1) pid = 0;
      fclose(f);
    }
    sched_yield();
  }
  while (!shm_job_pids(pid)) sched_yield();
  kill(pid, SIGKILL);
  exit(0);
}

/* Waits until `others` processes of this job have files in /dev/shm (their inboxes: made
 * inside MPI_Init, after they printed their line). Without the wait, a loaded machine let the
 * job end before a slow rank had printed, or before it had made anything to clean up. */
static void wait_for_inboxes(int others) {
  while (shm_job_pids(0) < others) sched_yield();
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int v[4] = {0};
  if (strcmp(what, "before-init") == 0) {
    MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    printf("NOT REACHED\n");
    return 0;
  }
  if (strcmp(what, "killed-in-init") == 0) {
    char path[512], tmp[520];
    snprintf(path, sizeof path, "%s/rank0.pid", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
    if (atoi(getenv("LAPIS_RANK") ? getenv("LAPIS_RANK") : "0") != 0) kill_rank0_in_init(path);
    printf("pid %d job %s\n", (int)getpid(), getenv("LAPIS_JOB_ID") ? getenv("LAPIS_JOB_ID") : "");
    fflush(stdout);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = fopen(tmp, "w");
    if (f == NULL) return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    rename(tmp, path); /* whole, or not at all */
  }
  if (strcmp(what, "exit-before-init") == 0) {
    printf("pid %d job %s\n", (int)getpid(), getenv("LAPIS_JOB_ID") ? getenv("LAPIS_JOB_ID") : "");
    fflush(stdout);
    const char* r = getenv("LAPIS_RANK");
    const char* n = getenv("LAPIS_SIZE");
    if (r != NULL && n != NULL && atoi(r) == atoi(n) - 1) {
      wait_for_inboxes(atoi(n) - 1);
      exit(0);
    }
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(what, "bad-rank") == 0) {
    if (rank == size - 1) MPI_Send(v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    if (rank != size - 1) MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "abort") == 0) {
    if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "exit-in-recv") == 0 || strcmp(what, "exit-in-finalize") == 0) {
    if (rank == size - 1) {
      /* The test measures how long the job outlives this exit (one clock for all processes). */
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      printf("exiting at %lld ns\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
      fflush(stdout);
      exit(0);
    }
    if (what[8] == 'r') {
      MPI_Recv(v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Finalize();
      return 0; /* not reached either: the launcher ends the job first */
    }
  } else if (strcmp(what, "truncate") == 0) {
    MPI_Request r;
    if (rank == (size > 1 ? 1 : 0)) MPI_Isend(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    if (rank == 0) MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("NOT REACHED\n");
  MPI_Finalize();
  return 0;
}
