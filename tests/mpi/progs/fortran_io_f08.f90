! MPI-IO from the mpi_f08 module: TYPE(MPI_File), INTEGER(MPI_OFFSET_KIND)
! offsets, collective and shared-pointer access, nonblocking reads, get_view,
! optional ierror, MPI 4.0's large-count overloads (INTEGER(MPI_COUNT_KIND)
! counts), a data representation with conversion functions written in
! Fortran. Prints "OK" per rank.

! The representation: integers stored negated. extra_state counts calls.
module fio08_negate
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
  integer :: calls = 0
contains
  subroutine negate_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f = -u(position + 1:position + count)
    calls = calls + int(extra_state)
    ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
  end subroutine negate_write

  subroutine negate_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:position + count) = -f
    calls = calls + int(extra_state)
    ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
  end subroutine negate_read

  subroutine size_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, size
    call MPI_Type_size(datatype, size, ierror)
    extent = size
  end subroutine size_extent
end module fio08_negate

program fio08
  use mpi_f08
  use fio08_negate
  implicit none
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  type(MPI_Request) :: req
  type(MPI_Datatype) :: etype, ftype
  integer :: rank, nranks, ierr, i, count, pid
  integer(kind=MPI_COUNT_KIND) :: big
  integer :: buf(8), back(8)
  integer(kind=MPI_OFFSET_KIND) :: off, disp
  character(len=200) :: tmp, fname
  character(len=MPI_MAX_DATAREP_STRING) :: rep

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call get_environment_variable('TEST_TMPDIR', tmp)
  if (len_trim(tmp) == 0) call get_environment_variable('TMPDIR', tmp)
  if (len_trim(tmp) == 0) tmp = '/tmp'
  write (fname, '(A,A,I0,A)') trim(tmp), '/lapis_fio08_', pid, '.dat'

  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail(1)
  if (fh == MPI_FILE_NULL) call fail(2)
  buf = [(rank * 100 + i, i = 1, 8)]
  off = rank * 32
  call MPI_File_write_at_all(fh, off, buf, 8, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, count)
  if (count /= 8) call fail(3)
  call MPI_File_get_view(fh, disp, etype, ftype, rep)
  if (disp /= 0 .or. etype /= MPI_BYTE .or. ftype /= MPI_BYTE) call fail(4)
  if (trim(rep) /= 'native') call fail(5)
  off = mod(rank + 1, nranks) * 32
  call MPI_File_iread_at(fh, off, back, 8, MPI_INTEGER, req)
  call MPI_Wait(req, status)
  if (back(8) /= mod(rank + 1, nranks) * 100 + 8) call fail(6)
  ! Shared pointer: one integer each, then everybody's in rank order.
  call MPI_File_seek_shared(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET)
  call MPI_File_write_ordered(fh, rank, 1, MPI_INTEGER, status)
  call MPI_File_get_position_shared(fh, off)
  if (off /= 4 * nranks) call fail(7)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, min(nranks, 8), MPI_INTEGER, status)
  do i = 1, min(nranks, 8)
    if (back(i) /= i - 1) call fail(8)
  end do
  ! Large-count forms: write this rank's block again, read the next rank's.
  call MPI_Barrier(MPI_COMM_WORLD)
  buf = [(rank * 1000 + i, i = 1, 8)]
  call MPI_File_write_at(fh, int(rank * 32, MPI_OFFSET_KIND), buf, 8_MPI_COUNT_KIND, MPI_INTEGER, &
                         status)
  call MPI_Get_count(status, MPI_INTEGER, big)
  if (big /= 8) call fail(10)
  call MPI_Barrier(MPI_COMM_WORLD)
  back = 0
  call MPI_File_iread_at(fh, int(mod(rank + 1, nranks) * 32, MPI_OFFSET_KIND), back, &
                         8_MPI_COUNT_KIND, MPI_INTEGER, req)
  call MPI_Wait(req, status)
  if (back(8) /= mod(rank + 1, nranks) * 1000 + 8) call fail(11)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, -1_MPI_COUNT_KIND, MPI_INTEGER, status, ierr)
  if (ierr == MPI_SUCCESS) call fail(12)
  ! Through the negating representation: the file holds -value.
  call MPI_Register_datarep('lapis_f08_negate', negate_read, negate_write, size_extent, &
                            1_MPI_ADDRESS_KIND)
  call MPI_Register_datarep('lapis_f08_as_is', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            size_extent, 0_MPI_ADDRESS_KIND)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'lapis_f08_negate', &
                         MPI_INFO_NULL)
  buf = [(rank * 10 + i, i = 1, 8)]
  call MPI_File_write_at_all(fh, int(rank * 8, MPI_OFFSET_KIND), buf, 8, MPI_INTEGER, status)
  if (calls /= 1) call fail(13)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'lapis_f08_as_is', &
                         MPI_INFO_NULL)
  call MPI_File_read_at(fh, int(mod(rank + 1, nranks) * 8, MPI_OFFSET_KIND), back, 8, &
                        MPI_INTEGER, status)
  if (back(8) /= -(mod(rank + 1, nranks) * 10 + 8)) call fail(14)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'lapis_f08_negate', &
                         MPI_INFO_NULL)
  call MPI_File_read_at(fh, int(mod(rank + 1, nranks) * 8, MPI_OFFSET_KIND), back, 8, &
                        MPI_INTEGER, status)
  if (back(1) /= mod(rank + 1, nranks) * 10 + 1 .or. calls /= 2) call fail(15)
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, back, 8, MPI_REAL, status, ierr)
  if (ierr /= MPI_ERR_CONVERSION) call fail(16)
  call MPI_File_close(fh)
  if (fh /= MPI_FILE_NULL) call fail(9)
  call MPI_Finalize()
  print '(A)', 'OK'
contains
  subroutine fail(line)
    integer, intent(in) :: line
    print *, 'FAILED fortran_io_f08.f90 check ', line
    stop 3
  end subroutine fail
end program fio08
