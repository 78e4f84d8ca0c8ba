! MPI-IO from mpif.h (fixed form): open, explicit offsets, a view,
! the individual pointer, sizes, a Fortran file error handler, close
! and delete. Prints "OK" per rank.
      subroutine fhandler(fh, code)
      implicit none
      include 'mpif.h'
      integer fh, code, ncalls, lastfh
      common /fcalls/ ncalls, lastfh
      ncalls = ncalls + 1
      lastfh = fh
      end

      subroutine fail(line)
      implicit none
      integer line
      print *, 'FAILED fortran_io.f check ', line
      stop 3
      end

      program fio
      implicit none
      include 'mpif.h'
      integer ierr, rank, nranks, fh, i, cls, eh, count, pid, ftype
      integer buf(10), back(10), status(MPI_STATUS_SIZE)
      integer ncalls, lastfh
      common /fcalls/ ncalls, lastfh
      integer(kind=MPI_OFFSET_KIND) off, fsize
      character*200 tmp, fname
      external fhandler
      ncalls = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
      pid = getpid()
      call MPI_BCAST(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call get_environment_variable('TEST_TMPDIR', tmp)
      if (len_trim(tmp) .eq. 0) call get_environment_variable('TMPDIR',
     &    tmp)
      if (len_trim(tmp) .eq. 0) tmp = '/tmp'
      write (fname, '(A,A,I0,A)') trim(tmp), '/lapis_fio_', pid, '.dat'

      call MPI_FILE_OPEN(MPI_COMM_WORLD, fname, MPI_MODE_CREATE +
     &    MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS) call fail(1)
      if (fh .eq. MPI_FILE_NULL) call fail(2)
      do i = 1, 10
        buf(i) = rank * 100 + i
      end do
      off = rank * 40
      call MPI_FILE_WRITE_AT(fh, off, buf, 10, MPI_INTEGER, status,
     &    ierr)
      if (ierr .ne. MPI_SUCCESS) call fail(3)
      call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
      if (count .ne. 10) call fail(4)
      call MPI_FILE_SYNC(fh, ierr)
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call MPI_FILE_SYNC(fh, ierr)
      call MPI_FILE_GET_SIZE(fh, fsize, ierr)
      if (fsize .ne. 40 * nranks) call fail(5)
      off = mod(rank + 1, nranks) * 40
      call MPI_FILE_READ_AT(fh, off, back, 10, MPI_INTEGER,
     &    MPI_STATUS_IGNORE, ierr)
      if (back(10) .ne. mod(rank + 1, nranks) * 100 + 10)
     &    call fail(6)
! A view: every nranks-th pair of integers, from this rank's pair.
      call MPI_TYPE_VECTOR(1, 2, 2, MPI_INTEGER, ftype, ierr)
      call MPI_TYPE_CREATE_RESIZED(ftype, 0_MPI_ADDRESS_KIND,
     &    int(8 * nranks, MPI_ADDRESS_KIND), i, ierr)
      call MPI_TYPE_FREE(ftype, ierr)
      ftype = i
      call MPI_TYPE_COMMIT(ftype, ierr)
      off = 8 * rank
      call MPI_FILE_SET_VIEW(fh, off, MPI_INTEGER, ftype, 'native',
     &    MPI_INFO_NULL, ierr)
      if (ierr .ne. MPI_SUCCESS) call fail(7)
      call MPI_FILE_READ(fh, back, 4, MPI_INTEGER, status, ierr)
      call MPI_FILE_GET_POSITION(fh, off, ierr)
      if (off .ne. 4) call fail(8)
      call MPI_FILE_GET_BYTE_OFFSET(fh, off, fsize, ierr)
      if (fsize .ne. 8 * rank + 16 * nranks) call fail(9)
      call MPI_TYPE_FREE(ftype, ierr)
! A Fortran error handler gets the Fortran handle.
      call MPI_FILE_CREATE_ERRHANDLER(fhandler, eh, ierr)
      call MPI_FILE_SET_ERRHANDLER(fh, eh, ierr)
      off = -1
      call MPI_FILE_READ_AT(fh, off, back, 1, MPI_INTEGER,
     &    MPI_STATUS_IGNORE, ierr)
      call MPI_ERROR_CLASS(ierr, cls, i)
      if (cls .ne. MPI_ERR_ARG) call fail(10)
      if (ncalls .ne. 1 .or. lastfh .ne. fh) call fail(11)
      call MPI_ERRHANDLER_FREE(eh, ierr)
      call MPI_FILE_CLOSE(fh, ierr)
      if (fh .ne. MPI_FILE_NULL) call fail(12)
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        call MPI_FILE_DELETE(fname, MPI_INFO_NULL, ierr)
        if (ierr .ne. MPI_SUCCESS) call fail(13)
      end if
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call MPI_FILE_DELETE(fname, MPI_INFO_NULL, ierr)
      call MPI_ERROR_CLASS(ierr, cls, i)
      if (cls .ne. MPI_ERR_NO_SUCH_FILE) call fail(14)
      call MPI_FINALIZE(ierr)
      print '(A)', 'OK'
      end
