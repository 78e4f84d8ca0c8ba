#!/usr/bin/env python3
"""Generates the mpi_f08 module from api.txt and the build-time constants.

  gen_f08.py api.txt constants.txt mpi.h OUT.f90

Handles are derived types holding the C handle (MPI_VAL); a status is a
BIND(C) type laid out like the C MPI_Status. Each procedure is a thin
module procedure that calls the mpif.h glue under its PMPI name (pmpi_send_)
(gen_fortran.py), so there is still one implementation per function.
"""
import copy
import re
import sys

from gen_fortran import (FORTRAN_DECL, FORTRAN_RESULT, PROCEDURES, SPECIAL, SPECIAL_CHARS, read_api,
                         read_constants, sizeof_procedures, wrap)

HANDLE_TYPES = ('Comm', 'Datatype', 'Group', 'Request', 'Op', 'Errhandler', 'Message', 'Info',
                'Win')
# The handle type of a `handle` argument, from its name.
ARG_HANDLE_TYPE = {
    'comm': 'Comm', 'comm1': 'Comm', 'comm2': 'Comm', 'newcomm': 'Comm', 'oldcomm': 'Comm',
    'datatype': 'Datatype', 'oldtype': 'Datatype', 'newtype': 'Datatype',
    'sendtype': 'Datatype', 'recvtype': 'Datatype', 'sendtypes': 'Datatype',
    'recvtypes': 'Datatype', 'array_of_types': 'Datatype',
    'group': 'Group', 'group1': 'Group', 'group2': 'Group', 'newgroup': 'Group',
    'request': 'Request', 'array_of_requests': 'Request',
    'op': 'Op', 'errhandler': 'Errhandler', 'message': 'Message', 'info': 'Info',
    'newinfo': 'Info', 'win': 'Win',
    'array_of_datatypes': 'Datatype', 'comm_old': 'Comm', 'comm_cart': 'Comm', 'comm_graph': 'Comm', 'comm_dist_graph': 'Comm',
}
# mpif.h's declarations, except that handles and statuses are derived types.
DECL = {
    **FORTRAN_DECL,
    'handle': 'TYPE(MPI_{t}), INTENT(IN) :: {n}', 'handle*': 'TYPE(MPI_{t}) :: {n}',
    'handle[]': 'TYPE(MPI_{t}) :: {n}(*)',
    'status': 'TYPE(MPI_Status) :: {n}', 'status_in': 'TYPE(MPI_Status), INTENT(IN) :: {n}',
    'statuses': 'TYPE(MPI_Status) :: {n}(*)',
    'cptr_out': 'TYPE(C_PTR), INTENT(OUT) :: {n}',
}
# mpif.h's status indices are components of TYPE(MPI_Status) here.
STATUS_FIELDS = ('MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR')


def handle_types(header):
    """NAME -> handle type for mpi.h's predefined handles, from their casts."""
    types, aliases = {}, {}
    with open(header) as h:
        for line in h:
            m = re.match(r'\s*#\s*define\s+(MPI_\w+)\s+(.*)', line)
            if not m:
                continue
            name, body = m.groups()
            cast = re.search(r'\(\s*MPI_(' + '|'.join(HANDLE_TYPES) + r')\s*\)', body)
            if cast:
                types[name] = cast.group(1)
            elif re.fullmatch(r'MPI_\w+', body.strip()):
                aliases[name] = body.strip()
    for name, target in aliases.items():
        if target in types:
            types[name] = types[target]
    return types


def arg_type(f, a):
    if a.param:
        return a.param
    if a.name not in ARG_HANDLE_TYPE:
        sys.exit(f'gen_f08.py: {f.name}: no handle type for argument {a.name} '
                 '(write handle:Type in api.txt)')
    return ARG_HANDLE_TYPE[a.name]


def declarations(f, indent):
    lines = []
    for a in f.args:
        if a.kind in ('choice', 'void_out'):
            lines.append(f'{indent}!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a.name}')
        t = arg_type(f, a) if a.kind.startswith('handle') else ''
        lines.append(indent + DECL[a.kind].format(n=a.name, t=t, p=a.param))
    return lines


def procedure(f, glue=None):
    """A module procedure and, inside it, the interface of the glue it calls
    (explicit: buffers are passed on untyped); `glue` names the function
    whose glue it calls when that is not f itself."""
    dummies = [a.name for a in f.args]
    inner = f'p{(glue or f.name).lower()}'
    if f.result:
        head, tail = f'{FORTRAN_RESULT[f.result]} FUNCTION', 'FUNCTION'
        inner_dummies = dummies
    else:
        head, tail = 'SUBROUTINE', 'SUBROUTINE'
        inner_dummies = dummies + ['ierror']
    body = [wrap(f'{head} {f.name}({", ".join(inner_dummies)})', '  ')]
    body += declarations(f, '    ')
    if not f.result:
        body += ['    INTEGER, OPTIONAL, INTENT(OUT) :: ierror', '    INTEGER :: rc']
    body += ['    INTERFACE', wrap(f'{head} {inner}({", ".join(inner_dummies)})', '      '),
             '        IMPORT']
    body += declarations(f, '        ')
    if not f.result:
        body.append('        INTEGER :: ierror')
    body += [f'      END {tail} {inner}', '    END INTERFACE']
    if f.result:
        body.append(wrap(f'{f.name} = {inner}({", ".join(dummies)})', '    '))
    else:
        body.append(wrap(f'CALL {inner}({", ".join(dummies + ["rc"])})', '    '))
        body.append('    IF (PRESENT(ierror)) ierror = rc')
    body.append(f'  END {tail} {f.name}')
    return body


def c_pointer_forms(functions):
    """MPI_Alloc_mem, MPI_Win_allocate(_shared) and MPI_Win_shared_query
    return memory: in mpi_f08 their baseptr is TYPE(C_PTR) (MPI 3.1, 17.1.2),
    and the INTEGER(KIND=MPI_ADDRESS_KIND) form Lapis had stays beside it,
    under one generic name. Both call the same glue: a C_PTR passed by
    reference is the address-sized word the glue writes.
    Returns {name: (integer form, C_PTR form)}."""
    forms = {}
    for f in functions:
        if not any(a.name == 'baseptr' and a.kind == 'aint*' for a in f.args):
            continue
        aint, cptr = copy.deepcopy(f), copy.deepcopy(f)
        aint.name, cptr.name = f'{f.name}_aint', f'{f.name}_cptr'
        cptr.arg('baseptr').kind = 'cptr_out'
        forms[f.name] = (aint, cptr)
    return forms


def main(api, constants_path, header, out):
    functions = read_api(api)
    constants = dict(read_constants(constants_path, functions))
    types = handle_types(header)
    size = constants['MPI_STATUS_SIZE']
    fields = {constants[n]: n for n in STATUS_FIELDS}
    o = ['! Lapis MPI for Fortran: the `mpi_f08` module.',
         '! Generated by mpi/fortran/gen_f08.py at build time: do not edit.',
         'MODULE mpi_f08', '  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR', '  IMPLICIT NONE']
    for t in HANDLE_TYPES:
        o += [f'  TYPE, BIND(C) :: MPI_{t}', '    INTEGER :: MPI_VAL', f'  END TYPE MPI_{t}']
    o.append('  TYPE, BIND(C) :: MPI_Status')
    for i in range(1, size + 1):
        o.append(f'    INTEGER :: {fields.get(i, f"lapis_internal_{i}")}')
    o.append('  END TYPE MPI_Status')
    for name, value in constants.items():
        if name in STATUS_FIELDS:
            continue
        if name in types:
            o.append(f'  TYPE(MPI_{types[name]}), PARAMETER :: {name} = MPI_{types[name]}({value})')
        else:
            kind = '' if abs(value) < 2**31 else '(KIND=8)'
            o.append(f'  INTEGER{kind}, PARAMETER :: {name} = {value}')
    for name, dims, block in SPECIAL:
        decl = 'TYPE(MPI_Status)' if 'STATUS' in name else 'INTEGER'
        dims = '(1)' if name in ('MPI_STATUSES_IGNORE', 'MPI_ERRCODES_IGNORE') else ''
        o += [f'  {decl} :: {name}{dims}', f'  COMMON /{block}/ {name}']
    for name, dims, block in SPECIAL_CHARS:
        o += [f'  CHARACTER(LEN=1) :: {name}{dims}', f'  COMMON /{block}/ {name}']
    o.append(wrap(f'EXTERNAL :: {", ".join(PROCEDURES)}', '  '))
    # Handles compare with == and /= (MPI 3.1, 17.2.4).
    for op, suffix in (('==', 'eq'), ('/=', 'ne')):
        o.append(f'  INTERFACE OPERATOR({op})')
        o.append(wrap('MODULE PROCEDURE ' + ', '.join(f'lapis_{t.lower()}_{suffix}'
                                                       for t in HANDLE_TYPES), '    '))
        o.append('  END INTERFACE')
    sizeof_interface, sizeof_bodies = sizeof_procedures(True)
    o += sizeof_interface
    forms = c_pointer_forms(functions)
    for name, (aint, cptr) in forms.items():
        o += [f'  INTERFACE {name}', f'    MODULE PROCEDURE {aint.name}, {cptr.name}',
              f'  END INTERFACE {name}']
    o.append('CONTAINS')
    o += sizeof_bodies
    for t in HANDLE_TYPES:
        for op, suffix in (('==', 'eq'), ('/=', 'ne')):
            o += [f'  ELEMENTAL LOGICAL FUNCTION lapis_{t.lower()}_{suffix}(a, b)',
                  f'    TYPE(MPI_{t}), INTENT(IN) :: a, b',
                  f'    lapis_{t.lower()}_{suffix} = a%MPI_VAL {op} b%MPI_VAL',
                  f'  END FUNCTION lapis_{t.lower()}_{suffix}']
    for f in functions:
        if f.name in forms:
            for form in forms[f.name]:
                o += procedure(form, glue=f.name)
        else:
            o += procedure(f)
    o += ['END MODULE mpi_f08', '']
    with open(out, 'w') as f:
        f.write('\n'.join(o))


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
