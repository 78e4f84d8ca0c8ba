/* The C half of fortran_mixed.f90 (called with Fortran's conventions:
 * everything by reference, names with a trailing underscore). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

void c_check_status_(MPI_Fint *f_status, MPI_Fint *rank, MPI_Fint *ok);
void c_check_status_(MPI_Fint *f_status, MPI_Fint *rank, MPI_Fint *ok) {
  MPI_Status s;
  int count = -1;
  if (MPI_Status_f2c(f_status, &s) != MPI_SUCCESS) *ok = 0;
  MPI_Get_count(&s, MPI_INTEGER, &count);
  if (s.MPI_SOURCE != *rank || s.MPI_TAG != 42 || count != 1) {
    fprintf(stderr, "FAILED status from Fortran: source %d tag %d count %d\n", s.MPI_SOURCE,
            s.MPI_TAG, count);
    *ok = 0;
  }
  MPI_Fint back[sizeof(MPI_Status) / sizeof(MPI_Fint)];
  if (MPI_Status_c2f(&s, back) != MPI_SUCCESS || back[0] != f_status[0]) *ok = 0;
  /* Converting to "ignore" is an error, not a write through it. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (MPI_Status_c2f(&s, MPI_F_STATUS_IGNORE) != MPI_ERR_ARG) *ok = 0;
}

void c_is_status_ignore_(MPI_Fint *f_status, MPI_Fint *ok);
void c_is_status_ignore_(MPI_Fint *f_status, MPI_Fint *ok) {
  if (f_status != MPI_F_STATUS_IGNORE) *ok = 0;
}

void c_world_(MPI_Fint *comm);
void c_world_(MPI_Fint *comm) { *comm = MPI_Comm_c2f(MPI_COMM_WORLD); }

/* An attribute Fortran set, read from C: a pointer to the integer. */
static void check_attr(const char *what, int rc, int flag, void *v, MPI_Aint want, MPI_Fint *ok) {
  if (rc != MPI_SUCCESS || !flag || v == NULL || (MPI_Aint)(intptr_t)v == want || *(MPI_Aint *)v != want) {
    fprintf(stderr, "FAILED %s attribute set from Fortran, read from C: rc %d flag %d value %p (want a pointer to %ld)\n",
            what, rc, flag, v, (long)want);
    *ok = 0;
  }
}

void c_comm_attr_is_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok);
void c_comm_attr_is_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok) {
  void *v = NULL;
  int flag = 0;
  const int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &v, &flag);
  check_attr("communicator", rc, flag, v, *want, ok);
}

void c_type_attr_is_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok);
void c_type_attr_is_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok) {
  void *v = NULL;
  int flag = 0;
  const int rc = MPI_Type_get_attr(MPI_Type_f2c(*type), *keyval, &v, &flag);
  check_attr("datatype", rc, flag, v, *want, ok);
}

void c_win_attr_is_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok);
void c_win_attr_is_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *want, MPI_Fint *ok) {
  void *v = NULL;
  int flag = 0;
  const int rc = MPI_Win_get_attr(MPI_Win_f2c(*win), *keyval, &v, &flag);
  check_attr("window", rc, flag, v, *want, ok);
}

/* C sets a pointer; Fortran is to read its address. */
static int c_value = 31;
void c_set_pointer_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *address);
void c_set_pointer_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *address) {
  MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, &c_value);
  *address = (MPI_Aint)(intptr_t)&c_value;
}

/* mpi_f08's status layout: C, INTEGER array and MPI_F08_status round trips
 * (MPI 4.0's MPI_Status_f082c/c2f08/f082f/f2f08), "ignore" refused. */
void c_f08_status_(MPI_Fint *ok);
void c_f08_status_(MPI_Fint *ok) {
  MPI_F08_status f08 = {0, 0, 1, 2, 3}, back = {0, 0, 0, 0, 0};
  MPI_Status c;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  if (MPI_Status_f082c(&f08, &c) != MPI_SUCCESS || c.MPI_TAG != 2) *ok = 0;
  c.MPI_SOURCE += 10;
  if (MPI_Status_c2f08(&c, &back) != MPI_SUCCESS || back.MPI_SOURCE != 11) *ok = 0;
  if (MPI_Status_f082f(&back, f) != MPI_SUCCESS || f[MPI_F_SOURCE] != 11 || f[MPI_F_ERROR] != 3) {
    *ok = 0;
  }
  f[MPI_F_TAG] = 20;
  if (MPI_Status_f2f08(f, &f08) != MPI_SUCCESS || f08.MPI_TAG != 20 || f08.MPI_SOURCE != 11) {
    *ok = 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &c) != MPI_ERR_ARG) *ok = 0;
  if (MPI_Status_c2f08(&c, NULL) != MPI_ERR_ARG) *ok = 0;
  if (MPI_Status_f082f(&f08, MPI_F_STATUS_IGNORE) != MPI_ERR_ARG) *ok = 0;
  if (MPI_Status_f2f08(f, MPI_F08_STATUSES_IGNORE) != MPI_ERR_ARG) *ok = 0;
  if (*ok == 0) fprintf(stderr, "FAILED f08 status conversions\n");
}
