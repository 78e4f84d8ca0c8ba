! Free-form program with `use mpi_f08`: handle types and their comparison,
! TYPE(MPI_Status) with %MPI_SOURCE, optional ierror, point-to-point and
! request arrays, collectives, a derived type, strings, a Fortran error
! handler and an f08-style user op (C pointers by value), memory as
! TYPE(C_PTR) (MPI_Alloc_mem, windows, MPI_Buffer_detach), MPI 4.0's
! address-kind window overloads, MPI_F_sync_reg, the callback prototypes
! (PROCEDURE(MPI_User_function)). Prints OK per rank.
module f08_checks
  use mpi_f08
  implicit none
  integer :: nfail = 0, handler_code = 0
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(A, A)', 'FAILED ', what
      nfail = nfail + 1
    end if
  end subroutine check

  ! MPI_User_function in mpi_f08's form: the vectors as C pointers.
  subroutine max_abs(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    double precision, pointer :: a(:), b(:)
    integer :: i
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    do i = 1, len
      b(i) = max(abs(a(i)), abs(b(i)))
    end do
    if (datatype /= MPI_DOUBLE_PRECISION) b(1) = -1
  end subroutine max_abs

  subroutine record(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    handler_code = code
  end subroutine record

  ! Memory the library returns, as mpi_f08 gives it: a TYPE(C_PTR) baseptr
  ! (MPI_Alloc_mem, MPI_Win_allocate(_shared), MPI_Win_shared_query). The
  ! program is built against MPICH's module too (mpich_abi_test), which has
  ! only this form.
  subroutine c_pointer_memory(rank, nprocs)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
    integer, intent(in) :: rank, nprocs
    type(c_ptr) :: p, q
    integer, pointer :: a(:), b(:)
    integer(kind=MPI_ADDRESS_KIND) :: size
    integer :: disp, ierr
    type(MPI_Win) :: win
    ! Bad input through the C_PTR form: an error, named by its class.
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    call MPI_Alloc_mem(-1_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
    call MPI_Error_class(ierr, disp)
    call check(ierr /= MPI_SUCCESS .and. disp == MPI_ERR_SIZE, 'alloc_mem c_ptr: negative size')
    call MPI_Win_allocate(-8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    call check(ierr /= MPI_SUCCESS, 'win_allocate c_ptr: negative size')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
    call MPI_Alloc_mem(int(4 * 8, MPI_ADDRESS_KIND), MPI_INFO_NULL, p, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'alloc_mem into a c_ptr')
    call c_f_pointer(p, a, (/ 8 /))
    a = 3
    call check(sum(a) == 24, 'alloc_mem memory written')
    call MPI_Free_mem(a)
    call MPI_Win_allocate(int(4 * 2, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win)
    call c_f_pointer(p, a, (/ 2 /))
    a = rank
    call MPI_Win_fence(0, win)
    call MPI_Put(a, 1, MPI_INTEGER, mod(rank + 1, nprocs), 1_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call check(a(2) == mod(rank + nprocs - 1, nprocs), 'win_allocate c_ptr: put landed')
    call MPI_Win_free(win)
    call MPI_Win_allocate_shared(int(4 * 2, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                                 p, win)
    call c_f_pointer(p, a, (/ 2 /))
    a = 100 + rank
    call MPI_Win_fence(0, win)
    call MPI_Win_shared_query(win, 0, size, disp, q)
    call c_f_pointer(q, b, (/ 2 /))
    call check(size == 8 .and. disp == 4 .and. b(1) == 100, 'win_shared_query c_ptr')
    call MPI_Win_fence(0, win)
    call MPI_Win_free(win)
    ! MPI 4.0's overload with an INTEGER(KIND=MPI_ADDRESS_KIND) disp_unit.
    call MPI_Win_allocate(int(4 * 2, MPI_ADDRESS_KIND), 4_MPI_ADDRESS_KIND, MPI_INFO_NULL, &
                          MPI_COMM_WORLD, p, win)
    call c_f_pointer(p, a, (/ 2 /))
    a = -1
    call MPI_Win_fence(0, win)
    call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, &
                 win)
    call MPI_Win_fence(0, win)
    call check(a(1) == mod(rank + nprocs - 1, nprocs), 'win_allocate address-kind disp_unit')
    call MPI_Win_free(win)
  end subroutine c_pointer_memory

  ! A buffered send from a dummy the caller declared INTENT(IN) (mpi_f08's
  ! send buffers are INTENT(IN)); MPI_Buffer_detach gives back the attached
  ! buffer as a TYPE(C_PTR), with its size.
  subroutine buffered(values, rank, nprocs)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_associated
    integer, intent(in) :: values(:)
    integer, intent(in) :: rank, nprocs
    integer, target, save :: pool(4096)
    integer :: got(size(values)), n
    integer(kind=MPI_COUNT_KIND) :: big
    type(c_ptr) :: detached
    type(MPI_Request) :: req
    call MPI_Buffer_attach(pool, 4 * 4096)
    call MPI_Irecv(got, size(values), MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 7, &
                   MPI_COMM_WORLD, req)
    call MPI_Bsend(values, size(values), MPI_INTEGER, mod(rank + 1, nprocs), 7, MPI_COMM_WORLD)
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    call MPI_F_sync_reg(got)
    call check(all(got == values - rank + mod(rank + nprocs - 1, nprocs)), 'bsend from intent(in)')
    call MPI_Buffer_detach(detached, n)
    call check(c_associated(detached, c_loc(pool)) .and. n == 4 * 4096, 'buffer_detach c_ptr')
    call MPI_Buffer_attach(pool, 4 * 100)
    call MPI_Buffer_detach(detached, big)
    call check(c_associated(detached, c_loc(pool)) .and. big == 4 * 100, &
               'buffer_detach large count')
    ! MPI 4.1 (lines marked mpi41): automatic buffering on a communicator, flushed.
    call MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0)  ! mpi41
    call MPI_Irecv(got, size(values), MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 8, MPI_COMM_WORLD, req)  ! mpi41
    call MPI_Bsend(values, size(values), MPI_INTEGER, mod(rank + 1, nprocs), 8, MPI_COMM_WORLD)  ! mpi41
    call MPI_Comm_flush_buffer(MPI_COMM_WORLD)  ! mpi41
    call MPI_Wait(req, MPI_STATUS_IGNORE)  ! mpi41
    call MPI_F_sync_reg(got)  ! mpi41
    call check(all(got == values - rank + mod(rank + nprocs - 1, nprocs)), 'bsend automatic')  ! mpi41
    call MPI_Comm_detach_buffer(MPI_COMM_WORLD, detached, n)  ! mpi41
    call check(n == 0 .and. c_associated(detached), 'comm_detach_buffer automatic')  ! mpi41
    block  ! mpi41
      type(MPI_Info) :: hw  ! mpi41
      logical :: found  ! mpi41
      character(len=8) :: value  ! mpi41
      call MPI_Get_hw_resource_info(hw)  ! mpi41
      call MPI_Info_get(hw, 'hwloc://Machine', 8, value, found)  ! mpi41
      call check(found .and. value == 'true', 'get_hw_resource_info')  ! mpi41
      call MPI_Info_free(hw)  ! mpi41
    end block  ! mpi41
  end subroutine buffered
end module f08_checks

program f08
  use mpi_f08
  use f08_checks
  implicit none
  integer :: rank, nprocs, next, prev, ierr, n, len, i
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: vec
  type(MPI_Comm) :: dup
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  integer :: ibuf(6), jbuf(6)
  integer(kind=MPI_COUNT_KIND) :: big, nint, nadd, nlarge, ndt, larges(1)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  type(MPI_Datatype) :: dts(1)
  integer :: fstatus(MPI_STATUS_SIZE)
  double precision :: x, y
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=3) :: short
  logical :: flag
  type(MPI_Status) :: st41  ! mpi41
  type(MPI_Request) :: reqs41(2)  ! mpi41
  type(MPI_Datatype) :: pair41  ! mpi41
  ! The callback prototypes (abstract interfaces) of the module.
  procedure(MPI_User_function), pointer :: user_op
  procedure(MPI_Comm_errhandler_function), pointer :: on_error

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  call check(MPI_COMM_WORLD /= MPI_COMM_SELF .and. MPI_COMM_WORLD == MPI_COMM_WORLD, 'compare')

  ibuf = (/ (rank * 10 + i, i = 1, 6) /)
  call MPI_Irecv(jbuf, 6, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(ibuf, 6, MPI_INTEGER, next, 1, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'waitall')
  call check(statuses(1)%MPI_SOURCE == prev .and. statuses(1)%MPI_TAG == 1, 'status fields')
  call check(all(reqs == MPI_REQUEST_NULL), 'requests freed')
  call check(jbuf(6) == prev * 10 + 6, 'ring data')
  call MPI_Get_count(statuses(1), MPI_INTEGER, n)
  call check(n == 6, 'get_count')

  ! Every other element, as a vector type.
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  jbuf = 0
  call MPI_Sendrecv(ibuf, 1, vec, next, 2, jbuf, 3, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, status)
  call check(jbuf(2) == prev * 10 + 3 .and. jbuf(4) == 0, 'vector')
  call check(status%MPI_SOURCE == prev, 'sendrecv status')
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'type freed')

  ! MPI 4.0's large-count overloads: INTEGER(KIND=MPI_COUNT_KIND) counts.
  jbuf = 0
  call MPI_Irecv(jbuf, 6_MPI_COUNT_KIND, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(ibuf, 6_MPI_COUNT_KIND, MPI_INTEGER, next, 3, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), status)
  call MPI_Get_count(status, MPI_INTEGER, big)
  call check(big == 6 .and. jbuf(6) == prev * 10 + 6, 'large-count send, irecv, get_count')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, big)
  call check(big == 8, 'large-count type_size')
  call MPI_Bcast(jbuf, 2_MPI_COUNT_KIND, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'large-count bcast')
  ! Decoding a type made by a large-count constructor: its count comes back
  ! among the large counts.
  call MPI_Type_contiguous(5_MPI_COUNT_KIND, MPI_INTEGER, vec)
  call MPI_Type_get_envelope(vec, nint, nadd, nlarge, ndt, n)
  call check(n == MPI_COMBINER_CONTIGUOUS .and. nint == 0 .and. nadd == 0 .and. nlarge == 1 &
             .and. ndt == 1, 'large-count type_get_envelope')
  call MPI_Type_get_contents(vec, 0_MPI_COUNT_KIND, 0_MPI_COUNT_KIND, 1_MPI_COUNT_KIND, &
                             1_MPI_COUNT_KIND, ibuf, addrs, larges, dts)
  call check(larges(1) == 5 .and. dts(1) == MPI_INTEGER, 'large-count type_get_contents')
  call MPI_Type_free(vec)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(ibuf, -1_MPI_COUNT_KIND, MPI_INTEGER, next, 3, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_ERR_COUNT, 'large-count negative count')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  x = rank + 1
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(y == nprocs * (nprocs + 1) / 2.0d0, 'allreduce')
  n = merge(99, 0, rank == 0)
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(n == 99, 'bcast')
  n = rank
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(n == nprocs - 1, 'in place')

  user_op => max_abs
  call MPI_Op_create(user_op, .true., op)
  x = -(rank + 1.5d0)
  call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
  ! (one rank: the op is never called)
  call check(y == merge(x, nprocs + 0.5d0, nprocs == 1), 'f08 user op')
  call MPI_Op_free(op)

  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_name(dup, 'dup')
  call MPI_Comm_get_name(dup, name, len)
  call check(name == 'dup' .and. len == 3, 'names')
  call MPI_Comm_get_name(MPI_COMM_WORLD, short, len)
  call check(short == 'MPI' .and. len == 3, 'truncated name')
  on_error => record
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Recv(n, 1, MPI_INTEGER, nprocs + 5, 0, dup, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_ERR_RANK .and. handler_code == MPI_ERR_RANK, 'errhandler')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'comm freed')
  call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, status)
  call check(.not. flag, 'iprobe')
  call check(MPI_Wtime() > 0 .and. MPI_Wtick() > 0, 'wtime')
  call check(kind(MPI_DISPLACEMENT_CURRENT) == MPI_OFFSET_KIND, 'MPI_DISPLACEMENT_CURRENT kind')
  call MPI_Sizeof(x, n)
  call check(n == 8, 'sizeof double precision')
  call MPI_Sizeof(ibuf, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 4, 'sizeof integer array')

  call c_pointer_memory(rank, nprocs)
  call buffered((/ (rank + i, i = 1, 5) /), rank, nprocs)

  ! MPI 4.0's status conversions between TYPE(MPI_Status) and the INTEGER array.
  status%MPI_SOURCE = 3
  status%MPI_TAG = 4
  call MPI_Status_f082f(status, fstatus)
  call check(fstatus(MPI_SOURCE) == 3 .and. fstatus(MPI_TAG) == 4, 'status_f082f')
  fstatus(MPI_ERROR) = 5
  call MPI_Status_f2f08(fstatus, status, ierr)
  call check(ierr == MPI_SUCCESS .and. status%MPI_ERROR == 5 .and. status%MPI_SOURCE == 3, &
             'status_f2f08')

  ! A distributed graph without weights: MPI_UNWEIGHTED (the ring) and
  ! MPI_WEIGHTS_EMPTY (no edges), recognised by their addresses.
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, [prev], MPI_UNWEIGHTED, 1, [next], &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., dup, ierr)
  call check(ierr == MPI_SUCCESS, 'dist graph unweighted')
  call MPI_Dist_graph_neighbors_count(dup, ibuf(1), ibuf(2), flag)
  call check(ibuf(1) == 1 .and. ibuf(2) == 1 .and. .not. flag, 'unweighted neighbors count')
  call MPI_Dist_graph_neighbors(dup, 1, jbuf(1:1), MPI_UNWEIGHTED, 1, jbuf(2:2), MPI_UNWEIGHTED)
  call check(jbuf(1) == prev .and. jbuf(2) == next, 'unweighted neighbors')
  call MPI_Comm_free(dup)
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, jbuf, [0], jbuf, MPI_WEIGHTS_EMPTY, &
                             MPI_INFO_NULL, .false., dup, ierr)
  call check(ierr == MPI_SUCCESS, 'dist graph weights empty')
  call MPI_Dist_graph_neighbors_count(dup, ibuf(1), ibuf(2), flag)
  call check(ibuf(1) == 0 .and. ibuf(2) == 0 .and. flag, 'weights empty: weighted, no edges')
  call MPI_Comm_free(dup)

  ! MPI 4.1's removal of an error string, code and class (MPICH 4.0's module
  ! names them MPIX_Delete_error_*: mpich_abi_test renames the calls).
  call MPI_Add_error_class(ibuf(1))
  call MPI_Add_error_code(ibuf(1), ibuf(2))
  call MPI_Add_error_string(ibuf(2), 'mine')
  call MPI_Remove_error_string(ibuf(2), ierr)
  call check(ierr == MPI_SUCCESS, 'remove error string')
  call MPI_Error_string(ibuf(2), text, n, ierr)
  call check(ierr == MPI_SUCCESS .and. n == 0, 'removed error string')
  call MPI_Remove_error_code(ibuf(2))
  call MPI_Remove_error_class(ibuf(1), ierr)
  call check(ierr == MPI_SUCCESS, 'remove error class')

  ! MPI 4.1's status accessors, value-index pair types and non-destructive
  ! request queries (not in MPICH 4.0: mpich_abi_test drops the mpi41 lines).
  call MPI_Status_set_source(st41, 4)  ! mpi41
  call MPI_Status_set_tag(st41, 9, ierr)  ! mpi41
  call MPI_Status_get_source(st41, n)  ! mpi41
  call MPI_Status_get_tag(st41, ibuf(1))  ! mpi41
  call check(n == 4 .and. ibuf(1) == 9 .and. st41%MPI_SOURCE == 4, 'status accessors')  ! mpi41
  call MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, pair41)  ! mpi41
  call check(pair41 == MPI_2DOUBLE_PRECISION, 'value index pair')  ! mpi41
  call MPI_Irecv(ibuf, 1, MPI_INTEGER, prev, 41, MPI_COMM_WORLD, reqs41(1))  ! mpi41
  reqs41(2) = MPI_REQUEST_NULL  ! mpi41
  call MPI_Send(rank, 1, MPI_INTEGER, next, 41, MPI_COMM_WORLD)  ! mpi41
  flag = .false.  ! mpi41
  do while (.not. flag)  ! mpi41
    call MPI_Request_get_status_any(2, reqs41, n, flag, st41)  ! mpi41
  end do  ! mpi41
  call check(n == 1 .and. st41%MPI_SOURCE == prev .and. ibuf(1) == prev, 'get_status_any')  ! mpi41
  call check(reqs41(1) /= MPI_REQUEST_NULL, 'get_status_any keeps the request')  ! mpi41
  call MPI_Wait(reqs41(1), MPI_STATUS_IGNORE)  ! mpi41

  call MPI_Finalize(ierr)
  call check(ierr == MPI_SUCCESS, 'finalize')
  if (nfail == 0) print '(A)', 'OK'
  if (nfail /= 0) call exit(3)
end program f08
