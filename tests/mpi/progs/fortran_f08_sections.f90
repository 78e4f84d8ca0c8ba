! Array sections as mpi_f08 buffers (TYPE(*), DIMENSION(..)): MPI treats a
! non-contiguous section as its elements one after another. Nonblocking
! and persistent point-to-point on strided 2-D sections (the data must land
! in the program's array, not in a temporary), a partial count, a section
! of COMPLEX described with MPI_REAL, Bcast and a blocking reduction of
! sections, and the errors: a count beyond the section, and a nonblocking
! reduction of a section (no datatype can describe it). Prints OK per rank.
program f08_sections
  use mpi_f08
  implicit none
  integer :: rank, nprocs, next, prev, i, j, ierr, cls, nfail
  integer, asynchronous :: a(6, 6), b(6, 6), v(10)
  complex :: z(8), w(8)
  double precision :: d(3, 4), e(3, 4)
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: status

  nfail = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  do i = 1, 6
    do j = 1, 6
      a(j, i) = 1000 * rank + 10 * j + i
    end do
  end do

  ! Columns 2, 4, 6 (a section with a stride between columns) into rows 1, 3, 5.
  b = -1
  call MPI_Irecv(b(1:5:2, :), 18, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(:, 2:6:2), 18, MPI_INTEGER, next, 1, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(all(b(1:5:2, :) == reshape([(((1000 * prev + 10 * j + i), j = 1, 6), i = 2, 6, 2)], &
             [3, 6])), 'isend/irecv of strided sections')
  call check(all(b(2:6:2, :) == -1), 'irecv left the elements between the section alone')

  ! Persistent: the section's datatype outlives the call that made it.
  b = -1
  call MPI_Recv_init(b(2, :), 6, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Send_init(a(3, :), 6, MPI_INTEGER, next, 2, MPI_COMM_WORLD, reqs(2))
  do i = 1, 2
    call MPI_Startall(2, reqs)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  call check(all(b(2, :) == [(1000 * prev + 30 + i, i = 1, 6)]), 'persistent row sections')
  call check(count(b == -1) == 30, 'persistent receive touched only its row')

  ! A count smaller than the section: the first elements of v(1:10:3).
  v = -1
  call MPI_Sendrecv([7, 8, 9], 3, MPI_INTEGER, next, 3, v(1:10:3), 3, MPI_INTEGER, prev, 3, &
                    MPI_COMM_WORLD, status)
  call check(all(v == [7, -1, -1, 8, -1, -1, 9, -1, -1, -1]), 'partial count into a section')

  ! COMPLEX elements, two MPI_REALs each.
  z = [(cmplx(rank, i), i = 1, 8)]
  w = (0.0, 0.0)
  call MPI_Sendrecv(z(1:8:2), 8, MPI_REAL, next, 4, w(2:8:2), 8, MPI_REAL, prev, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(w(2:8:2) == [(cmplx(prev, i), i = 1, 8, 2)]) .and. all(w(1:7:2) == (0.0, 0.0)), &
             'complex section as reals')

  ! Collectives: a broadcast row, and a blocking reduction of sections.
  d = rank
  if (rank == 0) d(2, :) = [1d0, 2d0, 3d0, 4d0]
  call MPI_Bcast(d(2, :), 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  call check(all(d(2, :) == [1d0, 2d0, 3d0, 4d0]) .and. all(d(1, :) == rank), 'bcast of a row')
  e = -5d0
  d(1, :) = rank + 1
  call MPI_Allreduce(d(1, :), e(3, :), 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(all(e(3, :) == nprocs * (nprocs + 1) / 2d0) .and. all(e(1:2, :) == -5d0), &
             'allreduce of rows')

  ! Errors, returned: a count the section cannot hold; a nonblocking
  ! reduction of a section.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a(1, :), 7, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_BUFFER, 'count beyond the section: MPI_ERR_BUFFER')
  call MPI_Iallreduce(d(1, :), e(3, :), 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                      reqs(1), ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_BUFFER, 'nonblocking reduction of a section: MPI_ERR_BUFFER')
  call MPI_Finalize()
  if (nfail == 0) print '(A)', 'OK'
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      nfail = nfail + 1
      print '(A, A)', 'FAILED: ', what
    end if
  end subroutine check
end program f08_sections
