! Fortran and C in one program: statuses cross the language boundary
! (MPI_Status_f2c / c2f, MPI_F_STATUS_IGNORE is Fortran's
! MPI_STATUS_IGNORE; mpi_f08's status layout: MPI_Status_f082c ...) and
! handles are the same integers in both. Attributes too (MPI 4.0 20.3.7):
! one Fortran sets reaches C as a pointer to the integer (also on a
! duplicate, and from MPI_ATTR_PUT), one C sets reaches Fortran as the
! pointer's address.
program mixed
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, status(MPI_STATUS_SIZE), buf, ok, from_c
  integer :: keyval, dup_keyval, type_keyval, win_keyval, dtype, dup, win, winbuf(4)
  integer(kind=MPI_ADDRESS_KIND) :: val, got, extra, c_address, win_size
  logical :: flag
  integer :: f08_bytes(MPI_STATUS_SIZE)
  integer :: psend(8), precv(8), preqs(2), plist(2), i
  integer(kind=MPI_COUNT_KIND) :: pcount
  external :: c_check_status, c_is_status_ignore, c_world, c_f08_status
  external :: c_comm_attr_is, c_type_attr_is, c_win_attr_is, c_set_pointer_attr
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

  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, keyval, extra, ierr)
  val = 5555
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, val, ierr)
  call c_comm_attr_is(MPI_COMM_WORLD, keyval, val, ok)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, got, flag, ierr)
  if (.not. flag .or. got /= 5555) ok = 0
  call MPI_Attr_put(MPI_COMM_WORLD, keyval, 77, ierr)
  call c_comm_attr_is(MPI_COMM_WORLD, keyval, 77_MPI_ADDRESS_KIND, ok)
  call c_set_pointer_attr(MPI_COMM_WORLD, keyval, c_address)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, got, flag, ierr)
  if (.not. flag .or. got /= c_address) ok = 0
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Comm_free_keyval(keyval, ierr)

  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dup_keyval, extra, ierr)
  val = 4242
  call MPI_Comm_set_attr(MPI_COMM_WORLD, dup_keyval, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call c_comm_attr_is(dup, dup_keyval, val, ok)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, dup_keyval, ierr)
  call MPI_Comm_free_keyval(dup_keyval, ierr)

  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, type_keyval, extra, ierr)
  call MPI_Type_dup(MPI_INTEGER, dtype, ierr)
  val = 6666
  call MPI_Type_set_attr(dtype, type_keyval, val, ierr)
  call c_type_attr_is(dtype, type_keyval, val, ok)
  call MPI_Type_get_attr(dtype, type_keyval, got, flag, ierr)
  if (.not. flag .or. got /= 6666) ok = 0
  call MPI_Type_free(dtype, ierr)
  call MPI_Type_free_keyval(type_keyval, ierr)

  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, win_keyval, extra, ierr)
  win_size = 16
  call MPI_Win_create(winbuf, win_size, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  val = 7777
  call MPI_Win_set_attr(win, win_keyval, val, ierr)
  call c_win_attr_is(win, win_keyval, val, ok)
  call MPI_Win_get_attr(win, win_keyval, got, flag, ierr)
  if (.not. flag .or. got /= 7777) ok = 0
  call MPI_Win_free(win, ierr)
  call MPI_Win_free_keyval(win_keyval, ierr)

  ! Partitioned point-to-point to itself: 4 send partitions of 2, 2 receive
  ! partitions of 4; ready by range and list; MPI_Parrived until arrived.
  ! (Here, not in fortran_module.f90, which mpich_abi_test also builds
  ! against MPICH 4.0's mpi module: that declares MPI_PARRIVED's flag
  ! INTEGER, the standard LOGICAL.)
  psend = (/ (10 * rank + i, i = 1, 8) /)
  precv = -1
  pcount = 4
  call MPI_Precv_init(precv, 2, pcount, MPI_INTEGER, 0, 7, MPI_COMM_SELF, MPI_INFO_NULL, &
                      preqs(1), ierr)
  if (ierr /= MPI_SUCCESS) ok = 0
  pcount = 2
  call MPI_Psend_init(psend, 4, pcount, MPI_INTEGER, 0, 7, MPI_COMM_SELF, MPI_INFO_NULL, &
                      preqs(2), ierr)
  if (ierr /= MPI_SUCCESS) ok = 0
  call MPI_Startall(2, preqs, ierr)
  call MPI_Pready_range(0, 1, preqs(2), ierr)
  call MPI_Parrived(preqs(1), 1, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag) ok = 0  ! not before the last partition is ready
  plist = (/ 3, 2 /)
  call MPI_Pready_list(2, plist, preqs(2), ierr)
  if (ierr /= MPI_SUCCESS) ok = 0
  flag = .false.
  do while (.not. flag)
    call MPI_Parrived(preqs(1), 1, flag, ierr)
  end do
  call MPI_Waitall(2, preqs, MPI_STATUSES_IGNORE, ierr)
  if (any(precv /= psend)) ok = 0
  call MPI_Request_free(preqs(1), ierr)
  call MPI_Request_free(preqs(2), ierr)

  call MPI_Finalize(ierr)
  if (ok == 1) then
    print '(A)', 'OK'
  else
    print '(A)', 'FAILED mixed-language statuses, handles or attributes'
    call exit(3)
  end if
end program mixed
