/* Two independently started jobs that connect (MPI_Open_port, MPI_Comm_accept/connect,
 * MPI_Comm_join), run by tests/mpi/connect_test.cc as two lapirun jobs side by side.
 *
 *   connect accept FIFO   opens a port, writes its name into FIFO (rank 0), accepts
 *   connect connect FIFO  reads the name from FIFO (rank 0), tries a wrong secret, connects
 *   connect join-listen FIFO / join-connect FIFO   one rank each: a TCP socket between them
 *                         (the listener writes its port into FIFO), then MPI_Comm_join
 *   connect vanish-accept FIFO / vanish-connect FIFO   the connecting job ends without
 *                         disconnecting; the accepting job's receive from it fails
 *   connect publish-accept FIFO / lookup-connect FIFO   the port found through the name
 *                         service (a lapis_names daemon at LAPIS_NAME_SERVER); FIFO says "ready"
 *   connect bad           bad port names and arguments, one job alone (no name server)
 *
 * The FIFO is the only synchronisation between the jobs: opening it blocks until the other
 * side opens it too. Every rank prints OK. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

enum { kBig = 1 << 20 };

static void write_line(const char* fifo, const char* text) {
  FILE* f = fopen(fifo, "w");
  CHECK(f != NULL);
  fprintf(f, "%s\n", text);
  fclose(f);
}

static void read_line(const char* fifo, char* out, int len) {
  FILE* f = fopen(fifo, "r");
  CHECK(f != NULL);
  CHECK(fgets(out, len, f) != NULL);
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
}

/* The name, read by rank 0 and handed to the others (only the root's counts; the others check
 * they may pass anything). */
static void port_from(const char* fifo, char* port) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) read_line(fifo, port, MPI_MAX_PORT_NAME);
  else strcpy(port, "ignored at non-root ranks");
}

/* Traffic across the inter-communicator: each rank sends its identity to every remote rank
 * (small and rendezvous-sized), collectives across, then a merged intra-communicator. `high`
 * is 1 on the connecting side. */
static void exercise(MPI_Comm inter, int high) {
  int rank, size, rsize, flag;
  CHECK_OK(MPI_Comm_rank(inter, &rank));
  CHECK_OK(MPI_Comm_size(inter, &size));
  CHECK_OK(MPI_Comm_remote_size(inter, &rsize));
  CHECK_OK(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag);
  /* The roots tell each other their group's size. */
  if (rank == 0) {
    int their_size = -1;
    CHECK_OK(MPI_Sendrecv(&size, 1, MPI_INT, 0, 1, &their_size, 1, MPI_INT, 0, 1, inter,
                          MPI_STATUS_IGNORE));
    CHECK(their_size == rsize);
  }

  int* big = malloc(kBig * sizeof(int));
  int* got = malloc(kBig * sizeof(int));
  CHECK(big != NULL && got != NULL);
  for (int i = 0; i < kBig; ++i) big[i] = high * 1000000 + rank * 1000 + i % 997;
  for (int peer = 0; peer < rsize; ++peer) {
    int mine = high * 100 + rank, theirs = -1;
    CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, peer, 2, &theirs, 1, MPI_INT, peer, 2, inter,
                          MPI_STATUS_IGNORE));
    CHECK(theirs == (1 - high) * 100 + peer);
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(big, kBig, MPI_INT, peer, 3, got, kBig, MPI_INT, peer, 3, inter, &st));
    CHECK(st.MPI_SOURCE == peer);
    for (int i = 0; i < kBig; i += 4099) CHECK(got[i] == (1 - high) * 1000000 + peer * 1000 + i % 997);
  }
  free(big);
  free(got);

  /* A collective across: rank 0 of the accepting side broadcasts to the other group. */
  int value = high ? -1 : 4242;
  if (high) {
    CHECK_OK(MPI_Bcast(&value, 1, MPI_INT, 0, inter));
    CHECK(value == 4242);
  } else {
    CHECK_OK(MPI_Bcast(&value, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
  }

  /* One intra-communicator over both jobs. */
  MPI_Comm both;
  CHECK_OK(MPI_Intercomm_merge(inter, high, &both));
  int bsize, brank, sum = 0;
  CHECK_OK(MPI_Comm_size(both, &bsize));
  CHECK_OK(MPI_Comm_rank(both, &brank));
  CHECK(bsize == size + rsize);
  CHECK(brank == (high ? rsize + rank : rank));
  CHECK_OK(MPI_Allreduce(&brank, &sum, 1, MPI_INT, MPI_SUM, both));
  CHECK(sum == bsize * (bsize - 1) / 2);
  CHECK_OK(MPI_Comm_free(&both));

  /* Both sides asking for the same order: the two jobs still agree on one (task ids are each
   * process's own, so they cannot decide it). */
  MPI_Comm tie;
  CHECK_OK(MPI_Intercomm_merge(inter, 0, &tie));
  int trank, *ranks = malloc((size_t)bsize * sizeof(int));
  CHECK(ranks != NULL);
  CHECK_OK(MPI_Comm_rank(tie, &trank));
  CHECK_OK(MPI_Allgather(&trank, 1, MPI_INT, ranks, 1, MPI_INT, tie));
  for (int i = 0; i < bsize; ++i) CHECK(ranks[i] == i);
  free(ranks);
  CHECK_OK(MPI_Comm_free(&tie));
}

/* The job's own collectives after a disconnect, node-segment ones included, with every rank
 * (whether it took part in the connection or not). */
static void after_disconnect(void) {
  int rank, size, sum = 0, root_sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 50; ++i) {
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2);
    CHECK_OK(MPI_Reduce(&rank, &root_sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) CHECK(root_sum == sum);
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void accept_side(const char* fifo) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME] = "ignored at non-root ranks";
  if (rank == 0) {
    CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(strncmp(port, "lapis-port:v1:", 14) == 0);
    char ip[64] = "";
    CHECK(sscanf(port + 14, "%63[0-9.]", ip) == 1);
    printf("port on %s\n", ip);
    write_line(fifo, port);
  }
  /* Ranks 0 and 1 meet the other job; the others stay out of it. */
  MPI_Comm part;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &part));
  if (part != MPI_COMM_NULL) {
    MPI_Comm inter;
    CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, part, &inter));
    exercise(inter, 0);
    CHECK_OK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_free(&part));
  }
  if (rank == 0) CHECK_OK(MPI_Close_port(port));
  after_disconnect();
}

static void connect_side(const char* fifo) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME];
  port_from(fifo, port);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm inter;
  if (rank == 0) {
    /* The wrong secret: the port drops the connection and goes on accepting. */
    char wrong[MPI_MAX_PORT_NAME];
    strcpy(wrong, port);
    char* last = wrong + strlen(wrong) - 1;
    *last = *last == '0' ? '1' : '0';
    int cls = 0;
    MPI_Error_class(MPI_Comm_connect(wrong, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), &cls);
    CHECK(cls == MPI_ERR_PORT);
    CHECK(inter == MPI_COMM_NULL);
  }
  /* As a name read back with fgets: the newline is not part of it. */
  if (rank == 0) strcat(port, "\n");
  CHECK_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  exercise(inter, 1);
  CHECK_OK(MPI_Comm_disconnect(&inter));
  after_disconnect();
}

/* MPI_Comm_join over a socket the two processes made themselves. */
static void join_side(const char* fifo, int listen_side) {
  int fd = -1;
  if (listen_side) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CHECK(bind(lfd, (struct sockaddr*)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0);
    CHECK(getsockname(lfd, (struct sockaddr*)&sa, &sl) == 0);
    char text[16];
    snprintf(text, sizeof text, "%d", ntohs(sa.sin_port));
    write_line(fifo, text);
    fd = accept(lfd, NULL, NULL);
    close(lfd);
  } else {
    char text[16];
    read_line(fifo, text, sizeof text);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((unsigned short)atoi(text));
    CHECK(connect(fd, (struct sockaddr*)&sa, sizeof sa) == 0);
  }
  CHECK(fd >= 0);
  MPI_Comm inter;
  CHECK_OK(MPI_Comm_join(fd, &inter));
  close(fd);
  int rsize = 0;
  CHECK_OK(MPI_Comm_remote_size(inter, &rsize));
  CHECK(rsize == 1);
  exercise(inter, listen_side ? 0 : 1);
  CHECK_OK(MPI_Comm_disconnect(&inter));
}

/* The connecting job ends (every rank exits at once, without MPI_Finalize) while the
 * accepting job waits for a message from it: that receive must fail, not hang. */
static void vanish_side(const char* fifo, int accepting) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME] = "ignored at non-root ranks";
  MPI_Comm inter;
  if (accepting) {
    if (rank == 0) {
      CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
      write_line(fifo, port);
    }
    CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int x = 0;
    const int rc = MPI_Recv(&x, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_PROC_FAILED);
    if (rank == 0) CHECK_OK(MPI_Close_port(port));
  } else {
    port_from(fifo, port);
    CHECK_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    printf("OK\n");
    fflush(stdout);
    _exit(0);  /* the job ends; lapirun reports the missing MPI_Finalize */
  }
}

static const char kService[] = "lapis-connect-test";

static void publish_side(const char* fifo) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME] = "ignored at non-root ranks";
  if (rank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_OK(MPI_Publish_name(kService, MPI_INFO_NULL, port));
    int cls = 0;
    MPI_Error_class(MPI_Publish_name(kService, MPI_INFO_NULL, port), &cls);  /* taken */
    CHECK(cls == MPI_ERR_SERVICE);
    write_line(fifo, "ready");
  }
  MPI_Comm inter;
  CHECK_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  exercise(inter, 0);
  CHECK_OK(MPI_Comm_disconnect(&inter));
  if (rank == 0) {
    CHECK_OK(MPI_Unpublish_name(kService, MPI_INFO_NULL, port));
    int cls = 0;
    MPI_Error_class(MPI_Unpublish_name(kService, MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_SERVICE);
    char gone[MPI_MAX_PORT_NAME];
    MPI_Error_class(MPI_Lookup_name(kService, MPI_INFO_NULL, gone), &cls);
    CHECK(cls == MPI_ERR_NAME);
    CHECK_OK(MPI_Close_port(port));
  }
}

static void lookup_side(const char* fifo) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char port[MPI_MAX_PORT_NAME] = "ignored at non-root ranks";
  if (rank == 0) {
    char ready[16];
    read_line(fifo, ready, sizeof ready);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = 0;
    MPI_Error_class(MPI_Lookup_name("no-such-service", MPI_INFO_NULL, port), &cls);
    CHECK(cls == MPI_ERR_NAME);
    CHECK_OK(MPI_Lookup_name(kService, MPI_INFO_NULL, port));
    CHECK(strncmp(port, "lapis-port:v1:", 14) == 0);
  }
  MPI_Comm inter;
  CHECK_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  exercise(inter, 1);
  CHECK_OK(MPI_Comm_disconnect(&inter));
}

/* The name service lapirun gives its job: rank 0 publishes its port, the others find it, and
 * after the unpublish nobody does. */
static void names_in_job(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_OK(MPI_Publish_name(kService, MPI_INFO_NULL, port));
  }
  CHECK_OK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
  CHECK_OK(MPI_Lookup_name(kService, MPI_INFO_NULL, found));
  CHECK(strcmp(found, port) == 0);
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_OK(MPI_Unpublish_name(kService, MPI_INFO_NULL, port));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  int cls = 0;
  MPI_Error_class(MPI_Lookup_name(kService, MPI_INFO_NULL, found), &cls);
  CHECK(cls == MPI_ERR_NAME);
  if (rank == 0) CHECK_OK(MPI_Close_port(port));
}

/* Run with LAPIS_NAME_SERVER empty: no name service. */
static void bad_input(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm inter = MPI_COMM_WORLD;
  int cls = 0;
  /* Garbage, and a port that was closed (nothing listens any more). */
  MPI_Error_class(MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), &cls);
  CHECK(cls == MPI_ERR_PORT);
  CHECK(inter == MPI_COMM_NULL);
  MPI_Error_class(MPI_Comm_connect("lapis-port:v1:127.0.0.1:99999:00", MPI_INFO_NULL, 0,
                                   MPI_COMM_SELF, &inter), &cls);
  CHECK(cls == MPI_ERR_PORT);
  char port[MPI_MAX_PORT_NAME];
  CHECK_OK(MPI_Open_port(MPI_INFO_NULL, port));
  CHECK_OK(MPI_Close_port(port));
  MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), &cls);
  CHECK(cls == MPI_ERR_PORT);
  MPI_Error_class(MPI_Close_port(port), &cls);  /* closed already */
  CHECK(cls == MPI_ERR_PORT);
  MPI_Error_class(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), &cls);
  CHECK(cls == MPI_ERR_PORT);
  /* Every rank checks root and comm; the root also the port name. */
  MPI_Error_class(MPI_Comm_accept(port, MPI_INFO_NULL, 5000, MPI_COMM_WORLD, &inter), &cls);
  CHECK(cls == MPI_ERR_ROOT);
  MPI_Error_class(MPI_Comm_connect(NULL, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), &cls);
  CHECK(cls == MPI_ERR_ARG);
  MPI_Error_class(MPI_Open_port(MPI_INFO_NULL, NULL), &cls);
  CHECK(cls == MPI_ERR_ARG);
  /* No name server: the name service says so. */
  MPI_Error_class(MPI_Publish_name("svc", MPI_INFO_NULL, "lapis-port:v1:127.0.0.1:1:00"), &cls);
  CHECK(cls == MPI_ERR_SERVICE);
  MPI_Error_class(MPI_Lookup_name("svc", MPI_INFO_NULL, port), &cls);
  CHECK(cls == MPI_ERR_NAME);
  MPI_Error_class(MPI_Lookup_name(NULL, MPI_INFO_NULL, port), &cls);
  CHECK(cls == MPI_ERR_ARG);
  MPI_Error_class(MPI_Comm_join(-1, &inter), &cls);
  CHECK(cls == MPI_ERR_ARG);
  CHECK(inter == MPI_COMM_NULL);
  /* A whole group whose root fails: every member returns, none waits for the other job. */
  MPI_Error_class(MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), &cls);
  CHECK(cls == MPI_ERR_PORT);
  CHECK(inter == MPI_COMM_NULL);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK(argc >= 2);
  const char* mode = argv[1];
  const char* fifo = argc >= 3 ? argv[2] : "";
  if (strcmp(mode, "accept") == 0) accept_side(fifo);
  else if (strcmp(mode, "connect") == 0) connect_side(fifo);
  else if (strcmp(mode, "join-listen") == 0) join_side(fifo, 1);
  else if (strcmp(mode, "join-connect") == 0) join_side(fifo, 0);
  else if (strcmp(mode, "vanish-accept") == 0) vanish_side(fifo, 1);
  else if (strcmp(mode, "vanish-connect") == 0) vanish_side(fifo, 0);
  else if (strcmp(mode, "publish-accept") == 0) publish_side(fifo);
  else if (strcmp(mode, "lookup-connect") == 0) lookup_side(fifo);
  else if (strcmp(mode, "names") == 0) names_in_job();
  else if (strcmp(mode, "bad") == 0) bad_input();
  else CHECK(!"unknown mode");
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
