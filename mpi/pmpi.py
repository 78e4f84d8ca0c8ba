#!/usr/bin/env python3
"""The profiling interface from mpi.h (MPI 3.1, chapter 14).

Every function the headers declare as MPI_X also exists as PMPI_X, and
every MPICH extension MPIX_X as PMPIX_X:
  * OUT_HEADER declares PMPI_X with MPI_X's prototype (mpi.h includes it);
  * OUT_DEFSYMS holds one `--defsym=PMPI_X=MPI_X` per function for the
    linker of libmpi.so, so PMPI_X is MPI_X's own code: a tool that defines
    MPI_X in a library loaded before libmpi.so intercepts the program's
    calls and reaches Lapis through PMPI_X.

usage: pmpi.py HEADER... OUT_HEADER OUT_DEFSYMS
  (mpi.h and the mpi_proto*.h files it includes)
"""
import re
import sys

PROTOTYPE = re.compile(r"^([A-Za-z_][\w \t]*?[\s*]+)(MPIX?_\w+)\s*\(([^;{]*)\)\s*;", re.M)


def prototypes(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    for m in PROTOTYPE.finditer(text):
        ret, name, args = m.group(1).strip(), m.group(2), " ".join(m.group(3).split())
        if ret.startswith(("typedef", "#")):
            continue
        yield ret, name, args


def main(headers, out_header, out_defsyms):
    found = [p for h in headers for p in prototypes(open(h).read())]
    if len(found) < 50:
        sys.exit(f"pmpi.py: only {len(found)} prototypes found in {' '.join(headers)}")
    with open(out_header, "w") as h:
        h.write("/* Generated from mpi.h by mpi/pmpi.py: the profiling interface's PMPI_ names. */\n")
        h.write("#ifndef LAPIS_PMPI_H_\n#define LAPIS_PMPI_H_\n")
        h.write('#include "mpi.h" /* its types; mpi.h includes this file at its end */\n')
        for ret, name, args in found:
            sep = "" if ret.endswith("*") else " "
            h.write(f"{ret}{sep}P{name}({args});\n")
        h.write("#endif /* LAPIS_PMPI_H_ */\n")
    with open(out_defsyms, "w") as d:
        for _, name, _ in found:
            d.write(f"--defsym=P{name}={name}\n")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1:-2], *sys.argv[-2:])
