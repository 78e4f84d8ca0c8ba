! Free-form program with `use mpi`: strings (processor name, error strings,
! communicator names, too-short buffers), an error handler and a reduction
! op written in Fortran, invalid handles, LOGICAL arguments and reductions,
! MAXLOC on MPI_2DOUBLE_PRECISION, 1-based Waitany indices, attributes, a
! struct type sent from MPI_BOTTOM. Prints OK per rank.
module checks
  implicit none
  integer :: nfail = 0
  integer :: handler_calls = 0, handler_code = 0, deletes = 0
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(A, A)', 'FAILED ', what
      nfail = nfail + 1
    end if
  end subroutine check
end module checks

! MPI_User_function: inoutvec(i) = invec(i) * 10 + inoutvec(i).
subroutine shift_digits(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = invec(i) * 10 + inoutvec(i)
  end do
end subroutine shift_digits

! Attribute callbacks: copies add extra_state to the value; deletes count.
subroutine copy_plus_extra(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
  logical :: flag
  val_out = val_in + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_plus_extra

subroutine count_delete(comm, keyval, val, extra, ierr)
  use mpi
  use checks
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine count_delete

! MPI_Comm_errhandler_function: records the call instead of aborting.
subroutine record_error(comm, code)
  use checks
  implicit none
  integer :: comm, code
  handler_calls = handler_calls + 1
  handler_code = code
end subroutine record_error

! MPI_ALLOC_MEM's TYPE(C_PTR) form: memory the program writes and frees.
subroutine alloc_mem_cptr()
  use mpi
  use checks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
  implicit none
  type(c_ptr) :: p
  integer, pointer :: a(:)
  integer :: ierr, cls
  ! Bad input through the C-pointer form (MPI_COMM_WORLD returns errors here).
  call MPI_Alloc_mem(-1_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  call check(cls == MPI_ERR_SIZE, 'alloc_mem c_ptr: negative size')
  call MPI_Alloc_mem(16_MPI_ADDRESS_KIND, MPI_COMM_WORLD, p, ierr)
  call check(ierr /= MPI_SUCCESS, 'alloc_mem c_ptr: a communicator as info')
  call MPI_Alloc_mem(int(10 * 4, MPI_ADDRESS_KIND), MPI_INFO_NULL, p, ierr)
  call check(ierr == MPI_SUCCESS .and. c_associated(p), 'alloc_mem into a c_ptr')
  call c_f_pointer(p, a, [10])
  a = 7
  call check(sum(a) == 70, 'alloc_mem memory written')
  call MPI_Free_mem(a, ierr)
  call check(ierr == MPI_SUCCESS, 'free_mem')
end subroutine alloc_mem_cptr

! Info keys and values from Fortran: leading and trailing blanks stripped
! (MPI_INFO_SET); a value is left alone when its key is missing or buflen is
! 0; MPI_INFO_GET_STRING's buflen counts characters, with no terminator.
subroutine info_strings()
  use mpi
  use checks
  implicit none
  integer :: info, ierr, buflen
  logical :: flag
  character(len=16) :: value
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  key1 ', '  v a l  ', ierr)
  call MPI_Info_set(info, 'key2', '12345', ierr)
  call MPI_Info_get(info, 'key1', 16, value, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. value == 'v a l', 'info: blanks stripped')
  value = 'keep'
  call MPI_Info_get(info, 'nokey', 16, value, flag, ierr)
  call check(.not. flag .and. value == 'keep', 'info_get: missing key leaves the value')
  buflen = 0
  call MPI_Info_get_string(info, 'key2', buflen, value, flag, ierr)
  call check(flag .and. buflen == 5 .and. value == 'keep', 'info_get_string: buflen 0')
  buflen = 2
  call MPI_Info_get_string(info, 'key2', buflen, value, flag, ierr)
  call check(flag .and. buflen == 5 .and. value == '12', 'info_get_string: truncated to buflen')
  buflen = 16
  call MPI_Info_get_string(info, 'key2', buflen, value, flag, ierr)
  call check(flag .and. buflen == 5 .and. value == '12345', 'info_get_string: whole value')
  buflen = 7
  value = 'keep'
  call MPI_Info_get_string(info, 'nokey', buflen, value, flag, ierr)
  call check(.not. flag .and. buflen == 7 .and. value == 'keep', 'info_get_string: missing key')
  call MPI_Info_free(info, ierr)
  ! MPI_INFO_CREATE_ENV: the job's size, no command (Fortran passes no argv).
  call MPI_Info_create_env(info, ierr)
  buflen = 16
  call MPI_Info_get_string(info, 'maxprocs', buflen, value, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. buflen > 0 .and. value /= '', 'info_create_env: maxprocs')
  buflen = 16
  call MPI_Info_get_string(info, 'command', buflen, value, flag, ierr)
  call check(.not. flag, 'info_create_env: no command from Fortran')
  call MPI_Info_free(info, ierr)
end subroutine info_strings

program module_mpi
  use mpi
  use checks
  implicit none
  external :: shift_digits, record_error, copy_plus_extra, count_delete
  integer :: keyval, keyval2, dup
  integer(kind=MPI_ADDRESS_KIND) :: attr
  integer :: ierr, rank, nprocs, len, cls, op, eh, half, i, idx, color
  integer :: status(MPI_STATUS_SIZE), reqs(2), digits, newtype, types(2)
  integer :: blocks(2), ival, provided
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), tag_ub
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=5) :: short
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  logical :: flag, lval
  double precision :: pair(2), best(2), dval
  ! Reached only through absolute addresses (MPI_BOTTOM): without VOLATILE
  ! an optimising compiler (MPICH's wrapper passes -O2) may keep them in
  ! registers across the calls.
  volatile :: ival, dval, idx, pair

  call MPI_Init_thread(MPI_THREAD_SINGLE, provided, ierr)
  call check(ierr == MPI_SUCCESS, 'init_thread')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ! The profiling names of the module's functions (typed DOUBLE PRECISION by it).
  dval = PMPI_Wtime()
  call check(dval > 0d0 .and. abs(dval - MPI_Wtime()) < 10d0, 'pmpi_wtime')
  call check(PMPI_Wtick() > 0d0 .and. PMPI_Wtick() < 1d0, 'pmpi_wtick')

  ! Strings come back blank-padded with their length.
  call MPI_Get_processor_name(host, len, ierr)
  call check(ierr == MPI_SUCCESS .and. len > 0, 'processor name')
  call check(len_trim(host) == len, 'processor name padded')
  call MPI_Error_string(MPI_ERR_TAG, msg, len, ierr)
  call check(ierr == MPI_SUCCESS .and. len > 5 .and. len_trim(msg) == len, 'error string')
  ! Too short a buffer: truncated to its length, never overrun.
  call MPI_Error_string(MPI_ERR_TAG, short, len, ierr)
  call check(ierr == MPI_SUCCESS .and. len == 5 .and. short == msg(1:5), 'truncated string')
  call MPI_Error_class(MPI_ERR_TAG, cls, ierr)
  call check(cls == MPI_ERR_TAG, 'error class')
  call MPI_Comm_get_name(MPI_COMM_WORLD, cname, len, ierr)
  call check(cname == 'MPI_COMM_WORLD' .and. len == 14, 'world name')

  ! Communicators, names with trailing blanks trimmed.
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, half, ierr)
  call MPI_Comm_set_name(half, 'half   ', ierr)
  call MPI_Comm_get_name(half, cname, len, ierr)
  call check(cname == 'half' .and. len == 4, 'set/get name')
  call MPI_Comm_test_inter(half, flag, ierr)
  call check(.not. flag, 'test_inter is a LOGICAL')

  ! A Fortran error handler sees the error; the call returns its code.
  call MPI_Comm_create_errhandler(record_error, eh, ierr)
  call MPI_Comm_set_errhandler(half, eh, ierr)
  call MPI_Send(ival, 1, MPI_INTEGER, 0, -5, half, ierr)
  call check(ierr == MPI_ERR_TAG, 'bad tag code')
  call check(handler_calls == 1 .and. handler_code == MPI_ERR_TAG, 'handler called')
  call MPI_Errhandler_free(eh, ierr)
  ! An invalid handle from Fortran: MPI_ERR_COMM / MPI_ERR_TYPE, no crash.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ival, 1, MPI_INTEGER, 0, 0, 12345, ierr)
  call check(ierr == MPI_ERR_COMM, 'invalid comm handle')
  call MPI_Send(ival, 1, MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_ERR_TYPE, 'communicator passed as datatype')
  call MPI_Comm_free(half, ierr)
  call check(half == MPI_COMM_NULL, 'comm freed')

  ! A user op written in Fortran (not commutative: rank order matters).
  call MPI_Op_create(shift_digits, .false., op, ierr)
  call MPI_Op_commutative(op, flag, ierr)
  call check(.not. flag, 'op not commutative')
  ival = rank + 1
  call MPI_Reduce(ival, digits, 1, MPI_INTEGER, op, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nprocs == 3) call check(digits == 123, 'user op in rank order')
  if (rank == 0 .and. nprocs == 1) call check(digits == 1, 'user op one rank')
  call MPI_Op_free(op, ierr)

  ! LOGICAL reductions and MAXLOC on Fortran pairs.
  lval = rank == 0
  call MPI_Allreduce(lval, flag, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(flag, 'logical lor')
  call MPI_Allreduce(lval, flag, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(flag .eqv. (nprocs == 1), 'logical land')
  pair = (/ dble(mod(rank, 2)), dble(rank) /)
  call MPI_Allreduce(pair, best, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(best(2) == dble(min(1, nprocs - 1)), 'maxloc smallest index')

  ! Waitany reports 1-based indices.
  call MPI_Irecv(ival, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, reqs(2), ierr)
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == 2 .and. status(MPI_SOURCE) == rank, 'waitany index')
  call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
  call check(.not. flag, 'iprobe flag false')

  ! Attributes: MPI_TAG_UB's value, not its address.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767 .and. tag_ub <= huge(0), 'tag_ub')

  ! Attribute callbacks written in Fortran, and the predefined ones.
  call MPI_Comm_create_keyval(copy_plus_extra, count_delete, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, keyval2, &
                              0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval2, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, keyval, attr, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. attr == 105, 'copied attribute')
  call MPI_Comm_get_attr(dup, keyval2, attr, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. flag, 'null copy fn')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1, 'delete callback')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call check(deletes == 2, 'delete attr')
  call MPI_Comm_free_keyval(keyval, ierr)
  call MPI_Comm_free_keyval(keyval2, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'keyval freed')

  ! A struct type of absolute addresses, sent from MPI_BOTTOM to self.
  call MPI_Get_address(ival, displs(1), ierr)
  call MPI_Get_address(dval, displs(2), ierr)
  blocks = (/ 1, 1 /)
  types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
  call MPI_Type_create_struct(2, blocks, displs, types, newtype, ierr)
  call MPI_Type_commit(newtype, ierr)
  ival = 77
  dval = 2.25d0
  call MPI_Isend(MPI_BOTTOM, 1, newtype, rank, 5, MPI_COMM_WORLD, reqs(1), ierr)
  ! Received into other variables through a second absolute-address type.
  call MPI_Get_address(idx, displs(1), ierr)
  call MPI_Get_address(pair(2), displs(2), ierr)
  call MPI_Type_create_struct(2, blocks, displs, types, types(1), ierr)
  call MPI_Type_commit(types(1), ierr)
  call MPI_Recv(MPI_BOTTOM, 1, types(1), rank, 5, MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS .and. idx == 77 .and. pair(2) == 2.25d0, 'struct from MPI_BOTTOM')
  call MPI_Get_count(status, types(1), i, ierr)
  call check(i == 1, 'struct count')
  call MPI_Get_elements(status, types(1), i, ierr)
  call check(i == 2, 'struct elements')
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Type_free(types(1), ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, newtype, rank, 6, digits, 0, MPI_INTEGER, &
                    MPI_PROC_NULL, 6, MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS .and. status(MPI_SOURCE) == MPI_PROC_NULL, 'proc_null')
  i = 0
  ival = 0
  dval = 0
  call MPI_Isend((/ 5, 6 /), 2, MPI_INTEGER, rank, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Wait(reqs(1), status, ierr)
  call MPI_Recv(blocks, 2, MPI_INTEGER, rank, 7, MPI_COMM_WORLD, status, ierr)
  call check(blocks(1) == 5 .and. blocks(2) == 6, 'array constant sent')
  call MPI_Type_free(newtype, ierr)

  ! MPI_SIZEOF of any type, kind and rank; MPI_ALLOC_MEM into a C pointer.
  call MPI_Sizeof(pair, len, ierr)
  call check(ierr == MPI_SUCCESS .and. len == 8, 'sizeof double precision array')
  call MPI_Sizeof(ival, len, ierr)
  call check(len == 4, 'sizeof integer')
  call MPI_Sizeof(1_1, len, ierr)
  call check(len == 1, 'sizeof integer(1)')
  call MPI_Sizeof(short, len, ierr)
  call check(len == 1, 'sizeof character: one byte, as in MPICH')
  call alloc_mem_cptr()
  call info_strings()

  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  call check(flag, 'finalized')
  if (nfail == 0) print '(A)', 'OK'
  if (nfail /= 0) call exit(3)
end program module_mpi
