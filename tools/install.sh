#!/usr/bin/env bash
# Installs Lapis MPI under a prefix:
#   PREFIX/include   mpi.h with the mpi_proto*.h it includes and lapis_pmpi.h
#                    (the PMPI_ names), lapi.h, mpif.h, mpi.mod, mpi_f08.mod
#   PREFIX/lib       libmpi.so.12 (MPICH's soname and ABI) with libmpich.so.12
#                    and libmpi.so linked to it, libmpifort.so.12 with
#                    libmpichfort.so.12 and libmpifort.so, liblapi.so,
#                    pkgconfig/{mpi,lapis-mpi,lapi}.pc
#   PREFIX/bin       mpicc, mpicxx, mpic++, mpifort, mpif90, mpif77, mpirun,
#                    mpiexec, lapirun, lapis_info, lapis_names
#
#   bash tools/install.sh PREFIX              # builds with bazel, then installs
#   bash tools/install.sh --from DIR PREFIX   # installs already-built files
#
# --from DIR takes a tree laid out like bazel-bin plus the sources (a test's
# runfiles directory is one): DIR/mpi/shared/libmpi.so.12, DIR/runtime/lapirun,
# DIR/mpi/include/mpi.h, DIR/tools/mpicc ...
set -euo pipefail

usage() {
  echo "usage: $0 [--from DIR] PREFIX" >&2
  exit 2
}

from=""
prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "install.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$prefix" ] || usage; prefix=$1; shift ;;
  esac
done
[ -n "$prefix" ] || usage

src=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$from" ]; then
  (cd "$src" && bazel build -c opt --config=lto //mpi/shared:libmpi.so.12 //mpi/shared:liblapi.so \
     //mpi/shared:libmpifort.so //mpi/fortran:fortran_includes //mpi:pmpi //runtime:lapirun \
     //tools:lapis_info //tools:lapis_names)
  bin=$(cd "$src" && bazel info -c opt --config=lto bazel-bin)
  srcdir=$src
else
  bin=$from
  srcdir=$from
fi

# mpi.h and the mpi_proto*.h it includes (mpi/BUILD's C_HEADERS).
c_headers=("$srcdir"/mpi/include/mpi*.h)
for f in "$bin/mpi/shared/libmpi.so.12" "$bin/runtime/lapirun" "$bin/mpi/include/lapis_pmpi.h" \
         "$srcdir/mpi/include/mpi.h" "$srcdir/tools/mpicc" "$srcdir/tools/mpirun"; do
  [ -f "$f" ] || { echo "install.sh: missing $f (build first or check --from)" >&2; exit 1; }
done

mkdir -p "$prefix/bin" "$prefix/include" "$prefix/lib/pkgconfig"
prefix=$(cd "$prefix" && pwd)

install -m 0644 "${c_headers[@]}" "$prefix/include/"
install -m 0644 "$bin/mpi/include/lapis_pmpi.h" "$prefix/include/lapis_pmpi.h"
install -m 0755 "$bin/mpi/shared/libmpi.so.12" "$prefix/lib/libmpi.so.12"
# Programs built by MPICH's wrappers need libmpich.so.12 (Debian) or
# libmpi.so.12 (upstream): one library under both names, so a process never
# loads two copies. libmpi.so is what `-lmpi` links against.
ln -sf libmpi.so.12 "$prefix/lib/libmpich.so.12"
ln -sf libmpi.so.12 "$prefix/lib/libmpi.so"
if [ -f "$bin/mpi/shared/liblapi.so" ] && [ -f "$srcdir/lapi/lapi.h" ]; then
  install -m 0755 "$bin/mpi/shared/liblapi.so" "$prefix/lib/liblapi.so"
  install -m 0644 "$srcdir/lapi/lapi.h" "$prefix/include/lapi.h"
fi
# Fortran (when built): the glue library, mpif.h and the mpi module.
if [ -f "$bin/mpi/shared/libmpifort.so" ] && [ -f "$bin/mpi/fortran/include/mpif.h" ]; then
  # MPICH's Fortran soname, and Debian's name for it (mpifort.mpich links
  # libmpichfort.so.12); libmpifort.so is what `-lmpifort` links against.
  install -m 0755 "$bin/mpi/shared/libmpifort.so" "$prefix/lib/libmpifort.so.12"
  ln -sf libmpifort.so.12 "$prefix/lib/libmpichfort.so.12"
  ln -sf libmpifort.so.12 "$prefix/lib/libmpifort.so"
  install -m 0644 "$bin/mpi/fortran/include/mpif.h" "$prefix/include/mpif.h"
  install -m 0644 "$bin/mpi/fortran/include/mpi.mod" "$prefix/include/mpi.mod"
  install -m 0644 "$bin/mpi/fortran/include/mpi_f08.mod" "$prefix/include/mpi_f08.mod"
  for name in mpifort mpif90 mpif77; do ln -sf mpicc "$prefix/bin/$name"; done
fi
install -m 0755 "$bin/runtime/lapirun" "$prefix/bin/lapirun"
if [ -f "$bin/tools/lapis_info" ]; then install -m 0755 "$bin/tools/lapis_info" "$prefix/bin/lapis_info"; fi
if [ -f "$bin/tools/lapis_names" ]; then install -m 0755 "$bin/tools/lapis_names" "$prefix/bin/lapis_names"; fi
install -m 0755 "$srcdir/tools/mpicc" "$prefix/bin/mpicc"
install -m 0755 "$srcdir/tools/mpirun" "$prefix/bin/mpirun"
ln -sf mpicc "$prefix/bin/mpicxx"
ln -sf mpicc "$prefix/bin/mpic++"
ln -sf mpirun "$prefix/bin/mpiexec"

# pkg-config files find the prefix from where they are (${pcfiledir}), so an
# installed tree can be moved. mpi-c/-cxx/-fort name the languages; ompi-c,
# ompi-cxx and ompi-fort are the names Meson's dependency('mpi') asks
# pkg-config for (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig they find Lapis).
write_pc() {  # file, name, description, libraries, extra cflags
  cat > "$1" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $2
Description: $3
Version: $version
Cflags: -I\${includedir}$5
Libs: -L\${libdir} -Wl,-rpath,\${libdir} $4
PC
}
version=$("$prefix/bin/lapirun" --version | sed -n 's/^lapirun (Lapis) //p')
pcdir=$prefix/lib/pkgconfig
describe="Lapis MPI (MPICH 4.0 ABI, over the Lapis one-sided core)"
for name in mpi mpi-c mpi-cxx lapis-mpi ompi-c ompi-cxx; do
  write_pc "$pcdir/$name.pc" "$name" "$describe" "-lmpi" ""
done
if [ -f "$prefix/lib/libmpifort.so" ]; then
  for name in mpi-fort ompi-fort; do
    write_pc "$pcdir/$name.pc" "$name" "$describe, Fortran" "-lmpifort -lmpi" " -fallow-argument-mismatch"
  done
fi
if [ -f "$prefix/lib/liblapi.so" ]; then
  write_pc "$pcdir/lapi.pc" "lapi" "Lapis one-sided core, LAPI-shaped C API" "-llapi" ""
fi

echo "installed Lapis MPI under $prefix"
echo "  compile: $prefix/bin/mpicc hello.c -o hello   (Fortran: mpifort hello.f90 -o hello)"
echo "  run:     $prefix/bin/mpirun -n 4 ./hello"
