#!/usr/bin/env python3
"""Generates the mpi_f08 module from api.txt and the build-time constants.

  gen_f08.py [--head OUT_HEAD.f90] api.txt constants.txt mpi.h mpi_proto_large.h OUT.f90 PROTO.h...

(PROTO.h: the headers with mpi.h's other prototypes, for their const buffers.)

OUT_HEAD.f90: the module's head — handle types, TYPE(MPI_Status), constants,
abstract interfaces — as a module of its own, lapis_f08_impl_types, for
gen_f08_impl.py's procedures: gfortran reads a used module whole at every
USE, and mpi_f08's 1.8 MB for each of their ~580 USEs was 20 of the 30 s
their file took to compile (the object is the same either way).

Handles are derived types holding the C handle (MPI_VAL); a status is a
BIND(C) type laid out like the C MPI_Status. Every function is a generic
(MPI_Send) whose specifics are external procedures with MPICH's names and
dummies (MPI_Send_f08ts, MPI_Send_f08ts_large), each with its PMPI twin
(PMPI_Send -> PMPIR_Send_f08ts): gen_f08_impl.py generates their code, which
calls the mpif.h glue, so there is still one implementation per function,
and a program compiled against MPICH's mpi_f08 calls the same entry points.
Choice buffers are TYPE(*), DIMENSION(..): array sections arrive as they
are (no copy by the compiler; f08_choice.c describes them).
"""
import copy
import re
import sys

from gen_fortran import (FORTRAN_DECL, FORTRAN_RESULT, PROCEDURES, SPECIAL, SPECIAL_CHARS,
                         constant_kind, cptr_form, input_buffers, large_functions, read_api, read_constants,
                         sizeof_procedures, wrap)

HANDLE_TYPES = ('Comm', 'Datatype', 'Group', 'Request', 'Op', 'Errhandler', 'Message', 'Info',
                'Win', 'Session', 'File')
# The handle type of a `handle` argument, from its name.
ARG_HANDLE_TYPE = {
    'comm': 'Comm', 'comm1': 'Comm', 'comm2': 'Comm', 'newcomm': 'Comm', 'oldcomm': 'Comm',
    'datatype': 'Datatype', 'oldtype': 'Datatype', 'newtype': 'Datatype',
    'sendtype': 'Datatype', 'recvtype': 'Datatype', 'sendtypes': 'Datatype',
    'recvtypes': 'Datatype', 'array_of_types': 'Datatype',
    'group': 'Group', 'group1': 'Group', 'group2': 'Group', 'newgroup': 'Group',
    'request': 'Request', 'array_of_requests': 'Request',
    'op': 'Op', 'errhandler': 'Errhandler', 'message': 'Message', 'info': 'Info',
    'newinfo': 'Info', 'win': 'Win', 'session': 'Session', 'fh': 'File', 'file': 'File',
    'info_used': 'Info', 'etype': 'Datatype', 'filetype': 'Datatype',
    'array_of_datatypes': 'Datatype', 'comm_old': 'Comm', 'comm_cart': 'Comm', 'comm_graph': 'Comm', 'comm_dist_graph': 'Comm',
}
# mpif.h's declarations, except that handles and statuses are derived types.
DECL = {
    **FORTRAN_DECL,
    'handle': 'TYPE(MPI_{t}), INTENT(IN) :: {n}', 'handle*': 'TYPE(MPI_{t}) :: {n}',
    'handle[]': 'TYPE(MPI_{t}) :: {n}(*)',
    'handle_file': 'TYPE(MPI_{t}), INTENT(IN) :: {n}', 'handle_file*': 'TYPE(MPI_{t}) :: {n}',
    'status': 'TYPE(MPI_Status) :: {n}', 'status_in': 'TYPE(MPI_Status), INTENT(IN) :: {n}',
    'statuses': 'TYPE(MPI_Status) :: {n}(*)',
    'cptr_out': 'TYPE(C_PTR), INTENT(OUT) :: {n}',
    'f08status': 'TYPE(MPI_Status) :: {n}', 'f08status_in': 'TYPE(MPI_Status), INTENT(IN) :: {n}',
}
# mpif.h's status indices are components of TYPE(MPI_Status) here (and
# still INTEGER constants, for the arrays MPI_Status_f082f fills).
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


CHOICE = ('choice', 'void_out')


class Specific:
    """One specific procedure of an mpi_f08 generic: `name` (MPICH's:
    MPI_Send_f08ts, MPI_Comm_rank_f08, MPI_Send_f08ts_large ...) under
    `generic` (MPI_Send), with the dummies of `f`, calling the C glue
    `glue` (pmpi_send_ / lapis_mpi_send_c_). Its PMPI twin is PMPIR_<name>
    under PMPI_<generic>: the code (gen_f08_impl.py) is the PMPIR one, and
    the MPI name is a weak alias of it, so a program that defines
    MPI_Send_f08ts itself profiles calls through the module."""

    def __init__(self, generic, name, f, glue):
        self.generic, self.name, self.f, self.glue = generic, name, f, glue

    def profiled(self):
        return Specific('P' + self.generic, 'PMPIR' + self.name[3:], self.f, self.glue)


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
        cptr.arg('baseptr').kind = 'cptr_out'
        forms[f.name] = (aint, cptr)
    return forms


# What makes a large-count form an overload of its own: an INTEGER that
# becomes INTEGER(KIND=MPI_COUNT_KIND) or INTEGER(KIND=MPI_ADDRESS_KIND),
# scalar or array (MPI_Win_create's disp_unit). MPI_ADDRESS_KIND is
# MPI_COUNT_KIND, so a form that only turns addresses into counts would be
# ambiguous.
WIDENED = {('int', 'count'), ('int*', 'count*'), ('int[]', 'count[]'),
           ('int', 'aint'), ('int*', 'aint*'), ('int[]', 'aint[]')}


def specifics(functions, large):
    """The specifics of every generic, in api.txt's order: each function's
    (its C_PTR/address-kind pair for memory-returning ones; the C_PTR form
    alone where mpif.h discards a pointer, cptr_form), then its large-count
    form when Fortran can tell it apart (an INTEGER that becomes wider, see
    WIDENED), with C_PTR results. MPICH's names throughout: _f08ts when a
    choice buffer is among the dummies, else _f08."""
    large_of = {f.name[:-2]: f for f in large}
    forms = c_pointer_forms(functions)
    result = []
    for f in functions:
        f = cptr_form(f) or f
        base = f.name.removesuffix('_cptr')
        ts = 'ts' if any(a.kind in CHOICE for a in f.args) else ''
        glue = ('lapis_' if getattr(f, 'internal', False) else 'p') + f.name.lower()
        if base in forms:
            aint, cptr = forms[base]
            result.append(Specific(base, f'{base}_f08', cptr, glue))
            result.append(Specific(base, f'{base}_aint_f08', aint, glue))
        else:
            result.append(Specific(base, f'{base}_f08{ts}', f, glue))
        big = large_of.get(base)
        if big and any((a.kind, b.kind) in WIDENED for a, b in zip(f.args, big.args)):
            big = cptr_form(big) or big
            if base in forms:
                big = copy.deepcopy(big)
                big.arg('baseptr').kind = 'cptr_out'
            result.append(Specific(base, f'{base}_f08{ts}_large', big,
                                   'lapis_' + big.name.lower()))
    return result


def nonblocking(f):
    """Whether f keeps using its buffers after it returns (a request, a window)."""
    return any(a.name in ('request', 'win') for a in f.args)


def choice_attributes(f, a):
    """INTENT(IN) for what C declares const (MPI 4.0, 19.1.2: send buffers),
    ASYNCHRONOUS for buffers used after the call returns."""
    return ((', INTENT(IN)' if getattr(a, 'input', False) else '') +
            (', ASYNCHRONOUS' if nonblocking(f) else ''))


def declarations(f, indent):
    lines = []
    for a in f.args:
        if a.kind in CHOICE:
            lines.append(f'{indent}TYPE(*), DIMENSION(..){choice_attributes(f, a)} :: {a.name}')
            continue
        t = arg_type(f, a) if a.kind.startswith('handle') else ''
        lines.append(indent + DECL[a.kind].format(n=a.name, t=t, p=a.param))
    return lines


def interface_body(s, indent):
    """The interface of an external specific (gen_f08_impl.py defines it)."""
    f = s.f
    dummies = [a.name for a in f.args] + ([] if f.result else ['ierror'])
    head = f'{FORTRAN_RESULT[f.result]} FUNCTION' if f.result else 'SUBROUTINE'
    body = [wrap(f'{head} {s.name}({", ".join(dummies)})', indent),
            f'{indent}  IMPORT', f'{indent}  IMPLICIT NONE']
    body += declarations(f, indent + '  ')
    if not f.result:
        body.append(f'{indent}  INTEGER, OPTIONAL, INTENT(OUT) :: ierror')
    body.append(f'{indent}END {"FUNCTION" if f.result else "SUBROUTINE"} {s.name}')
    return body


def generic_interfaces(all_specifics):
    """INTERFACE MPI_Send ... END INTERFACE for every generic, MPI and PMPI."""
    generics = {}
    for s in all_specifics:
        for one in (s, s.profiled()):
            generics.setdefault(one.generic, []).append(one)
    o = []
    for generic, members in generics.items():
        o.append(f'  INTERFACE {generic}')
        for s in members:
            o += interface_body(s, '    ')
        o.append(f'  END INTERFACE {generic}')
    return o


# The callback prototypes of mpi_f08 (MPI 4.0, the "Fortran 2008 bindings"
# of each callback type),
# for `PROCEDURE(MPI_User_function) :: f` and the like: (name, dummies,
# declarations). The calls take any procedure (EXTERNAL dummies), as MPICH's
# do.
_COPY = ('INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out',
         'INTEGER :: {k}_keyval, ierror', 'LOGICAL :: flag')
_DELETE = ('INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state',
           'INTEGER :: {k}_keyval, ierror')
_CONVERSION = ('TYPE(C_PTR), VALUE :: userbuf, filebuf', 'TYPE(MPI_Datatype) :: datatype',
               'INTEGER{c} :: count', 'INTEGER :: ierror',
               'INTEGER(KIND=MPI_OFFSET_KIND) :: position',
               'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state')
CALLBACKS = [
    ('MPI_User_function', 'invec, inoutvec, len, datatype',
     ('TYPE(C_PTR), VALUE :: invec, inoutvec', 'INTEGER :: len', 'TYPE(MPI_Datatype) :: datatype')),
    ('MPI_User_function_c', 'invec, inoutvec, len, datatype',
     ('TYPE(C_PTR), VALUE :: invec, inoutvec', 'INTEGER(KIND=MPI_COUNT_KIND) :: len',
      'TYPE(MPI_Datatype) :: datatype')),
    ('MPI_Datarep_conversion_function',
     'userbuf, datatype, count, filebuf, position, extra_state, ierror',
     tuple(d.format(c='') for d in _CONVERSION)),
    ('MPI_Datarep_conversion_function_c',
     'userbuf, datatype, count, filebuf, position, extra_state, ierror',
     tuple(d.format(c='(KIND=MPI_COUNT_KIND)') for d in _CONVERSION)),
    ('MPI_Datarep_extent_function', 'datatype, extent, extra_state, ierror',
     ('TYPE(MPI_Datatype) :: datatype', 'INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state',
      'INTEGER :: ierror')),
    ('MPI_Grequest_query_function', 'extra_state, status, ierror',
     ('INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'TYPE(MPI_Status) :: status',
      'INTEGER :: ierror')),
    ('MPI_Grequest_free_function', 'extra_state, ierror',
     ('INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'INTEGER :: ierror')),
    ('MPI_Grequest_cancel_function', 'extra_state, complete, ierror',
     ('INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state', 'LOGICAL :: complete',
      'INTEGER :: ierror')),
]
for _obj, _k, _t in (('Comm', 'comm', 'Comm'), ('Win', 'win', 'Win'), ('Type', 'type', 'Datatype')):
    _old = 'oldtype' if _obj == 'Type' else 'old' + _k
    _self = 'datatype' if _obj == 'Type' else _k
    CALLBACKS += [
        (f'MPI_{_obj}_copy_attr_function',
         f'{_old}, {_k}_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror',
         (f'TYPE(MPI_{_t}) :: {_old}',) + tuple(d.format(k=_k) for d in _COPY)),
        (f'MPI_{_obj}_delete_attr_function',
         f'{_self}, {_k}_keyval, attribute_val, extra_state, ierror',
         (f'TYPE(MPI_{_t}) :: {_self}',) + tuple(d.format(k=_k) for d in _DELETE)),
    ]
for _obj, _arg in (('Comm', 'comm'), ('Win', 'win'), ('File', 'file'), ('Session', 'session')):
    CALLBACKS.append((f'MPI_{_obj}_errhandler_function', f'{_arg}, error_code',
                      (f'TYPE(MPI_{_obj}) :: {_arg}', 'INTEGER :: error_code')))


def abstract_interfaces():
    o = ['  ABSTRACT INTERFACE']
    for name, dummies, decls in CALLBACKS:
        o += [wrap(f'SUBROUTINE {name}({dummies})', '    '), '      IMPORT', '      IMPLICIT NONE']
        o += ['      ' + d for d in decls]
        o.append(f'    END SUBROUTINE {name}')
    o.append('  END INTERFACE')
    return o


# MPI_F_sync_reg (MPI 4.0, 19.1.17): only a call the compiler cannot see
# through, so it has no C function and no api.txt line
# (fortran_support.c defines it, under MPICH's names).
SYNC_REG = '''  INTERFACE {p}MPI_F_sync_reg
    SUBROUTINE {r}_F_sync_reg_f08ts(buf)
      IMPLICIT NONE
      TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf
    END SUBROUTINE {r}_F_sync_reg_f08ts
  END INTERFACE {p}MPI_F_sync_reg'''


def main(api, constants_path, header, large_header, out, *prototypes, head_out=None):
    functions = read_api(api)
    large = large_functions(functions, large_header, *prototypes)
    input_buffers(functions + large, (header, large_header) + prototypes)
    constants = dict(read_constants(constants_path, functions))
    types = handle_types(header)
    size = constants['MPI_STATUS_SIZE']
    fields = {constants[n]: n for n in STATUS_FIELDS}
    o = ['  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR', '  IMPLICIT NONE']
    for t in HANDLE_TYPES:
        o += [f'  TYPE, BIND(C) :: MPI_{t}', '    INTEGER :: MPI_VAL', f'  END TYPE MPI_{t}']
    o.append('  TYPE, BIND(C) :: MPI_Status')
    for i in range(1, size + 1):
        o.append(f'    INTEGER :: {fields.get(i, f"lapis_internal_{i}")}')
    o.append('  END TYPE MPI_Status')
    for name, value in constants.items():
        if name in types:
            o.append(f'  TYPE(MPI_{types[name]}), PARAMETER :: {name} = MPI_{types[name]}({value})')
        else:
            kind = constant_kind(name, value, constants)
            o.append(f'  INTEGER{kind}, PARAMETER :: {name} = {value}')
    for name, dims, block in SPECIAL:
        decl = 'TYPE(MPI_Status)' if 'STATUS' in name else 'INTEGER'
        dims = '' if name in ('MPI_BOTTOM', 'MPI_IN_PLACE', 'MPI_STATUS_IGNORE') else '(1)'
        o += [f'  {decl} :: {name}{dims}', f'  COMMON /{block}/ {name}']
    for name, dims, block in SPECIAL_CHARS:
        o += [f'  CHARACTER(LEN=1) :: {name}{dims}', f'  COMMON /{block}/ {name}']
    o += abstract_interfaces()
    o.append(wrap(f'EXTERNAL :: {", ".join(PROCEDURES)}', '  '))
    head = o
    if head_out:
        with open(head_out, 'w') as f:
            f.write('\n'.join(['! Generated by mpi/fortran/gen_f08.py --head: do not edit.',
                               'MODULE lapis_f08_impl_types'] + head +
                              ['END MODULE lapis_f08_impl_types', '']))
    o = ['! Lapis MPI for Fortran: the `mpi_f08` module.',
         '! Generated by mpi/fortran/gen_f08.py at build time: do not edit.',
         'MODULE mpi_f08'] + head
    # Handles compare with == and /= (MPI 3.1, 17.2.4).
    for op, suffix in (('==', 'eq'), ('/=', 'ne')):
        o.append(f'  INTERFACE OPERATOR({op})')
        o.append(wrap('MODULE PROCEDURE ' + ', '.join(f'lapis_{t.lower()}_{suffix}'
                                                       for t in HANDLE_TYPES), '    '))
        o.append('  END INTERFACE')
    sizeof_interface, sizeof_bodies = sizeof_procedures(True)
    o += sizeof_interface
    o += generic_interfaces(specifics(functions, large))
    o += [SYNC_REG.format(p='', r='MPI'), SYNC_REG.format(p='P', r='PMPIR')]
    o.append('CONTAINS')
    o += sizeof_bodies
    for t in HANDLE_TYPES:
        for op, suffix in (('==', 'eq'), ('/=', 'ne')):
            o += [f'  ELEMENTAL LOGICAL FUNCTION lapis_{t.lower()}_{suffix}(a, b)',
                  f'    TYPE(MPI_{t}), INTENT(IN) :: a, b',
                  f'    lapis_{t.lower()}_{suffix} = a%MPI_VAL {op} b%MPI_VAL',
                  f'  END FUNCTION lapis_{t.lower()}_{suffix}']
    o += ['END MODULE mpi_f08', '']
    with open(out, 'w') as f:
        f.write('\n'.join(o))


if __name__ == '__main__':
    args, head_out = sys.argv[1:], None
    if args[:1] == ['--head'] and len(args) > 1:
        head_out, args = args[1], args[2:]
    if len(args) < 5:
        sys.exit(__doc__)
    main(*args, head_out=head_out)
