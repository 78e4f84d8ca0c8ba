! Fortran and C in one program: statuses cross the language boundary
! (MPI_Status_f2c / c2f, MPI_F_STATUS_IGNORE is Fortran's
! MPI_STATUS_IGNORE; mpi_f08's status layout: MPI_Status_f082c ...) and
! handles are the same integers in both.
program mixed
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, status(MPI_STATUS_SIZE), buf, ok, from_c
  integer :: f08_bytes(MPI_STATUS_SIZE)
  external :: c_check_status, c_is_status_ignore, c_world, c_f08_status
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, rank, 42, buf, 1, MPI_INTEGER, rank, 42, &
                    MPI_COMM_WORLD, status, ierr)
  ok = 1
  ! C reads the Fortran status: source, tag and count must survive.
  call c_check_status(status, rank, ok)
  call c_is_status_ignore(MPI_STATUS_IGNORE, ok)
  call c_f08_status(ok)
  ! The same from Fortran: MPI_STATUS_F082F / F2F08 (the f08 status' bytes).
  status(MPI_SOURCE) = 7
  call MPI_Status_f082f(status, f08_bytes, ierr)
  f08_bytes(MPI_TAG) = 8
  call MPI_Status_f2f08(f08_bytes, status, ierr)
  if (ierr /= MPI_SUCCESS .or. status(MPI_SOURCE) /= 7 .or. status(MPI_TAG) /= 8) ok = 0
  call c_world(from_c)
  if (from_c /= MPI_COMM_WORLD) ok = 0
  call MPI_Finalize(ierr)
  if (ok == 1) then
    print '(A)', 'OK'
  else
    print '(A)', 'FAILED mixed-language statuses or handles'
    call exit(3)
  end if
end program mixed
