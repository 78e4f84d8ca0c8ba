! The profiling interface through the mpi_f08 module (MPI 3.1 section 14.2):
! the program defines MPI_Send_f08ts and MPI_Recv_f08ts, the specifics the
! module's MPI_Send and MPI_Recv call (MPICH's names), which count calls
! and reach Lapis through PMPI_Send / PMPI_Recv; PMPI_Wtime is a function
! of the module. Prints OK per rank.
module profile_counts
  implicit none
  integer :: sends = 0, recvs = 0, amount = 0, nfail = 0
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      nfail = nfail + 1
      print '(A, A)', 'FAILED: ', what
    end if
  end subroutine check
end module profile_counts

subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
  use :: mpi_f08, only_the_module_s => MPI_Send_f08ts
  use profile_counts
  implicit none
  type(*), dimension(..), intent(in) :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  sends = sends + 1
  amount = amount + count
  call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_Send_f08ts

subroutine MPI_Recv_f08ts(buf, count, datatype, source, tag, comm, status, ierror)
  use :: mpi_f08, only_the_module_r => MPI_Recv_f08ts
  use profile_counts
  implicit none
  type(*), dimension(..) :: buf
  integer, intent(in) :: count, source, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  type(MPI_Status) :: status
  integer, optional, intent(out) :: ierror
  recvs = recvs + 1
  amount = amount + count
  call PMPI_Recv(buf, count, datatype, source, tag, comm, status, ierror)
end subroutine MPI_Recv_f08ts

program f08_profile
  use mpi_f08
  use profile_counts
  implicit none
  integer :: rank, nprocs, next, prev, ierr, sbuf(4), rbuf(4)
  type(MPI_Status) :: status
  double precision :: t0

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  t0 = PMPI_Wtime()
  call check(t0 > 0d0 .and. abs(t0 - MPI_Wtime()) < 10d0, 'pmpi_wtime')
  sbuf = [rank, 1, 2, 3]
  if (mod(rank, 2) == 0) then
    call MPI_Send(sbuf, 4, MPI_INTEGER, next, 9, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 4, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, status)
  else
    call MPI_Recv(rbuf, 4, MPI_INTEGER, prev, 9, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(sbuf, 4, MPI_INTEGER, next, 9, MPI_COMM_WORLD)
  end if
  call check(all(rbuf == [prev, 1, 2, 3]), 'data through the wrappers')
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 9, 'status through PMPI_Recv')
  call check(sends == 1 .and. recvs == 1, 'the program''s MPI_Send_f08ts and MPI_Recv_f08ts ran')
  call check(amount == 8, 'counts seen by the wrappers')
  call MPI_Finalize()
  if (nfail == 0) print '(A)', 'OK'
end program f08_profile
