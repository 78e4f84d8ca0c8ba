! MPI 4.0 sessions from Fortran (mpi_f08): a session without MPI_Init, its
! process sets, TYPE(MPI_Session), a communicator from mpi://WORLD with an
! allreduce on it, an unknown process set refused with MPI_ERR_ARG through
! the session's MPI_ERRORS_RETURN, and a finalised session's handle
! MPI_SESSION_NULL. Every rank prints OK.
program fortran_sessions
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  type(MPI_Group) :: world
  type(MPI_Comm) :: comm
  type(MPI_Info) :: info
  integer :: ierr, n, i, plen, rank, size, total, cls
  logical :: flag
  character(len=MPI_MAX_PSET_NAME_LEN) :: pname
  character(len=MPI_MAX_INFO_VAL) :: value
  logical :: seen_world

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call check(ierr == MPI_SUCCESS .and. session /= MPI_SESSION_NULL, 'session_init')
  call MPI_Initialized(flag, ierr)
  call check(.not. flag, 'initialized')

  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 2, 'num_psets')
  seen_world = .false.
  do i = 0, n - 1
    plen = len(pname)
    call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, pname, ierr)
    call check(ierr == MPI_SUCCESS .and. plen == len_trim(pname) + 1, 'nth_pset')
    if (trim(pname) == 'mpi://WORLD') seen_world = .true.
  end do
  call check(seen_world, 'mpi://WORLD listed')

  call MPI_Group_from_session_pset(session, 'mpi://WORLD', world, ierr)
  call check(ierr == MPI_SUCCESS, 'group_from_session_pset')
  call MPI_Group_size(world, size, ierr)
  call MPI_Session_get_pset_info(session, 'mpi://WORLD', info, ierr)
  call MPI_Info_get(info, 'mpi_size', MPI_MAX_INFO_VAL, value, flag, ierr)
  call check(flag, 'mpi_size present')
  read (value, *) i
  call check(i == size, 'mpi_size')
  call MPI_Info_free(info, ierr)

  call MPI_Comm_create_from_group(world, 'tests.fortran', MPI_INFO_NULL, MPI_ERRORS_RETURN, &
                                  comm, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_create_from_group')
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call check(total == size * (size - 1) / 2, 'allreduce')

  call MPI_Group_free(world, ierr)
  call MPI_Group_from_session_pset(session, 'mpi://nowhere', world, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_ARG, 'unknown pset')

  call MPI_Comm_free(comm, ierr)
  call MPI_Session_finalize(session, ierr)
  call check(ierr == MPI_SUCCESS .and. session == MPI_SESSION_NULL, 'session_finalize')
  print '(A)', 'OK'

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(A,A)', 'FAILED ', what
      stop 3
    end if
  end subroutine check

end program fortran_sessions
