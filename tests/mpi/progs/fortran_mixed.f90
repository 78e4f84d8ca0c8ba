! Fortran and C in one program: statuses cross the language boundary
! (MPI_Status_f2c / c2f, MPI_F_STATUS_IGNORE is Fortran's
! MPI_STATUS_IGNORE) and handles are the same integers in both.
program mixed
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, status(MPI_STATUS_SIZE), buf, ok, from_c
  external :: c_check_status, c_is_status_ignore, c_world
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, rank, 42, buf, 1, MPI_INTEGER, rank, 42, &
                    MPI_COMM_WORLD, status, ierr)
  ok = 1
  ! C reads the Fortran status: source, tag and count must survive.
  call c_check_status(status, rank, ok)
  call c_is_status_ignore(MPI_STATUS_IGNORE, ok)
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
