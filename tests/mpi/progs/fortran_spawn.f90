! MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran (`use mpi`), spawning this program
! (tests/mpi/spawn_test.cc runs it at 2 ranks with LAPIS_UNIVERSE_SIZE=8):
!   1. MPI_COMM_SPAWN with ARGV = ['  one', ' '] (blank-terminated; the child gets 'one':
!      leading and trailing blanks are stripped), 2 copies, error codes;
!   2. MPI_COMM_SPAWN_MULTIPLE of two commands, ARGVS(2, 2) = command 1: 'two', command 2:
!      'three', ' x y' (the child gets 'x y'; a blank ends each row), MPI_ERRCODES_IGNORE;
!   3. MPI_COMM_SPAWN with MPI_ARGV_NULL.
! Each child reads its own command line and MPI_APPNUM, and sends rank 0 of its parents a code
! saying what it saw: 1 ('one'), 20 + APPNUM ('two'), 30 + APPNUM ('three' 'x y'), 7 (no
! arguments). Every process prints OK.
program fortran_spawn
  use mpi
  implicit none
  integer :: ierr, parent, nargs
  character(len=64) :: arg1, arg2

  call MPI_INIT(ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent == MPI_COMM_NULL) then
    call spawn_children()
  else
    nargs = command_argument_count()
    arg1 = ' '
    arg2 = ' '
    if (nargs >= 1) call get_command_argument(1, arg1)
    if (nargs >= 2) call get_command_argument(2, arg2)
    call answer(parent, nargs, arg1, arg2)
  end if
  call MPI_FINALIZE(ierr)
  print '(A)', 'OK'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(A, A)', 'FAILED ', what
    call MPI_ABORT(MPI_COMM_WORLD, 3, e)
  end subroutine fail

  subroutine answer(parent, nargs, arg1, arg2)
    integer, intent(inout) :: parent
    integer, intent(in) :: nargs
    character(len=*), intent(in) :: arg1, arg2
    integer :: code, appnum, e
    logical :: flag
    integer(kind=MPI_ADDRESS_KIND) :: value
    call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_APPNUM, value, flag, e)
    appnum = 0
    if (flag) appnum = int(value)
    code = -1
    if (nargs == 1 .and. arg1 == 'one') code = 1
    if (nargs == 1 .and. arg1 == 'two') code = 20 + appnum
    if (nargs == 2 .and. arg1 == 'three' .and. arg2 == 'x y') code = 30 + appnum
    if (nargs == 0) code = 7
    call MPI_SEND(code, 1, MPI_INTEGER, 0, 5, parent, e)
    call MPI_COMM_DISCONNECT(parent, e)
  end subroutine answer

  ! The codes the children of one spawn send, summed at rank 0.
  integer function collect(children, n)
    integer, intent(in) :: children, n
    integer :: i, code, e
    collect = 0
    do i = 1, n
      call MPI_RECV(code, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, children, MPI_STATUS_IGNORE, e)
      collect = collect + code
    end do
  end function collect

  subroutine spawn_children()
    character(len=4096) :: self
    character(len=8) :: argv(2)
    character(len=8) :: argvs(2, 3)
    character(len=4096) :: commands(2)
    integer :: maxprocs(2), infos(2), errcodes(2), children, rank, e, remote
    call get_command_argument(0, self)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, e)

    argv(1) = '  one'  ! leading and trailing blanks are stripped
    argv(2) = ' '
    errcodes = -1
    call MPI_COMM_SPAWN(self, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, children, errcodes, e)
    if (e /= MPI_SUCCESS) call fail('MPI_COMM_SPAWN')
    call MPI_COMM_REMOTE_SIZE(children, remote, e)
    if (remote /= 2) call fail('remote size after MPI_COMM_SPAWN')
    if (rank == 0) then
      if (any(errcodes /= MPI_SUCCESS)) call fail('error codes')
      if (collect(children, 2) /= 2) call fail('the children of MPI_COMM_SPAWN saw other arguments')
    end if
    call MPI_COMM_DISCONNECT(children, e)

    commands(1) = self
    commands(2) = self
    argvs = ' '
    argvs(1, 1) = 'two'
    argvs(2, 1) = 'three'
    argvs(2, 2) = ' x y'
    maxprocs = 1
    infos = MPI_INFO_NULL
    call MPI_COMM_SPAWN_MULTIPLE(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, children, &
                                 MPI_ERRCODES_IGNORE, e)
    if (e /= MPI_SUCCESS) call fail('MPI_COMM_SPAWN_MULTIPLE')
    if (rank == 0) then
      if (collect(children, 2) /= 20 + 31) call fail('the children of MPI_COMM_SPAWN_MULTIPLE saw other arguments')
    end if
    call MPI_COMM_DISCONNECT(children, e)

    call MPI_COMM_SPAWN(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, children, &
                        MPI_ERRCODES_IGNORE, e)
    if (e /= MPI_SUCCESS) call fail('MPI_COMM_SPAWN with MPI_ARGV_NULL')
    if (rank == 0) then
      if (collect(children, 1) /= 7) call fail('the child of MPI_ARGV_NULL saw arguments')
    end if
    call MPI_COMM_DISCONNECT(children, e)
  end subroutine spawn_children
end program fortran_spawn
