#!/usr/bin/env python3
"""Generates Lapis' Fortran bindings from api.txt (one line per function).

  gen_fortran.py constants-program mpi.h OUT.c
      a C program that prints every integer constant mpi.h defines, plus the
      Fortran-only ones (MPI_STATUS_SIZE, MPI_SOURCE ...), as "NAME VALUE";
      built and run at build time, so the Fortran values follow mpi.h.
  gen_fortran.py glue api.txt mpi_proto_large.h OUT.c [mpi_proto_io.h]
      pmpi_send_, mpi_send_ ... (and lapis_mpi_send_c_ ... for mpi_f08)
  gen_fortran.py mpif api.txt constants.txt OUT.h   mpif.h (fixed-form safe)
  gen_fortran.py module api.txt constants.txt OUT.f90   the `mpi` module
"""
import copy
import re
import sys

# ---------------------------------------------------------------- api.txt

LINE = re.compile(r'^(MPI_\w+)\((.*?)\)\s*(?:->\s*(\w+))?\s*(?:=\s*(.+))?$')


class Arg:
    def __init__(self, text):
        kind, self.name = text.rsplit(None, 1)
        self.kind, _, self.param = kind.partition(':')


class Function:
    def __init__(self, name, args, result, call):
        self.name, self.args, self.result, self.call = name, args, result, call

    def arg(self, name):
        return next(a for a in self.args if a.name == name)


def read_api(path):
    functions = []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit(f'{path}:{number}: cannot parse: {line}')
            name, args, result, call = m.groups()
            args = [Arg(a.strip()) for a in args.split(',') if a.strip()]
            for a in args:
                if a.kind not in KINDS:
                    sys.exit(f'{path}:{number}: unknown kind {a.kind} of {a.name}')
            functions.append(Function(name, args, result, call))
    return functions


# ---------------------------------------------------------------- C glue
# Per kind: C parameter type, call expression, prelude, postlude ({n} is the
# argument's name, {p} its kind parameter).
KINDS = {
    'int': ('MPI_Fint *', '*{n}', '', ''),
    'keyval': ('MPI_Fint *', 'lapis_f_keyval(*{n})', '', ''),
    'handle': ('MPI_Fint *', '*{n}', '', ''),
    'int*': ('MPI_Fint *', '{n}', '', ''),
    'handle*': ('MPI_Fint *', '{n}', '', ''),
    'int[]': ('MPI_Fint *', '{n}', '', ''),
    'handle[]': ('MPI_Fint *', '{n}', '', ''),
    'ranges[]': ('MPI_Fint *', '(int (*)[3]){n}', '', ''),
    'aint': ('MPI_Aint *', '*{n}', '', ''),
    # MPI_File: a pointer in C, MPI_File_c2f's INTEGER in Fortran.
    'handle_file': ('MPI_Fint *', 'MPI_File_f2c(*{n})', '', ''),
    'handle_file*': ('MPI_Fint *', '&{n}_c', '  MPI_File {n}_c = MPI_File_f2c(*{n});\n',
                     '  *{n} = MPI_File_c2f({n}_c);\n'),
    'offset': ('MPI_Offset *', '*{n}', '', ''),
    'offset*': ('MPI_Offset *', '{n}', '', ''),
    'aint*': ('MPI_Aint *', '{n}', '', ''),
    'aint[]': ('MPI_Aint *', '{n}', '', ''),
    'count': ('MPI_Count *', '*{n}', '', ''),
    'count*': ('MPI_Count *', '{n}', '', ''),
    'count[]': ('MPI_Count *', '{n}', '', ''),
    'choice': ('void *', 'lapis_f_buffer({n})', '', ''),
    'void_out': ('void *', '&{n}_c', '  void *{n}_c = NULL;\n  (void){n};\n', ''),
    # The same pointer result returned (mpi_f08's TYPE(C_PTR): see cptr_form).
    'cptr_out': ('void **', '{n}', '', ''),
    'logical': ('MPI_Fint *', '(*{n} != 0)', '', ''),
    # gfortran's default LOGICAL is an int, .TRUE. 1: C reads nonzero as
    # true and writes 0/1, so the array is passed as it is.
    'logical[]': ('MPI_Fint *', '{n}', '', ''),
    'logical*': ('MPI_Fint *', '&{n}_c', '  int {n}_c = 0;\n', '  *{n} = {n}_c ? 1 : 0;\n'),
    'string_in': ('char *', '{n}_c', '  char *{n}_c = lapis_f_string_in({n}, {n}_len);\n',
                  '  free({n}_c);\n'),
    'string_key': ('char *', '{n}_c', '  char *{n}_c = lapis_f_string_trimmed({n}, {n}_len);\n',
                   '  free({n}_c);\n'),
    'string_out': ('char *', '{n}_c', '  char {n}_c[{p} + 1] = "";\n',
                   '  lapis_f_string_out({n}_c, {n}, {n}_len, resultlen);\n'),
    # An output string with no resultlen argument (MPI_Info_get ...): it starts as the
    # caller's value, which comes back unchanged when the call leaves it alone.
    'string_buf': ('char *', '{n}_c',
                   '  char {n}_c[{p} + 1];\n  lapis_f_string_keep({n}_c, {n}, {n}_len, {p});\n',
                   '  lapis_f_string_out({n}_c, {n}, {n}_len, NULL);\n'),
    # MPI_Comm_spawn(_multiple): an argv (CHARACTER*(*) ARGV(*), ends at a blank element; or
    # MPI_ARGV_NULL), argvs (CHARACTER*(*) A(count, *): row i is command i's; or
    # MPI_ARGVS_NULL), `count` strings, and error codes (or MPI_ERRCODES_IGNORE).
    'string_argv': ('char *', '{n}_c', '  char **{n}_c = lapis_f_argv_in({n}, {n}_len);\n',
                    '  lapis_f_free_argv({n}_c);\n'),
    'string_argvs': ('char *', '{n}_c', '  char ***{n}_c = lapis_f_argvs_in({n}, {n}_len, *{p});\n',
                     '  lapis_f_free_argvs({n}_c, *{p});\n'),
    'strings': ('char *', '{n}_c', '  char **{n}_c = lapis_f_strings_in({n}, {n}_len, *{p});\n',
                '  lapis_f_free_strings({n}_c, *{p});\n'),
    'errcodes': ('MPI_Fint *', 'lapis_f_errcodes({n})', '', ''),
    'weights': ('MPI_Fint *', 'lapis_f_weights({n})', '', ''),
    'f08status': ('MPI_Fint *', '(MPI_F08_status *){n}', '', ''),
    'f08status_in': ('MPI_Fint *', '(const MPI_F08_status *){n}', '', ''),
    'fstatus': ('MPI_Fint *', '{n}', '', ''),
    'fstatus_in': ('MPI_Fint *', '{n}', '', ''),
    'status': ('MPI_Fint *', '{n}_c',
               '  MPI_Status {n}_s;\n  MPI_Status *{n}_c = lapis_f_status_in({n}, &{n}_s);\n',
               '  lapis_f_status_out({n}_c, {n});\n'),
    'status_in': ('MPI_Fint *', '{n}_c',
                  '  MPI_Status {n}_s;\n  MPI_Status *{n}_c = lapis_f_status_in({n}, &{n}_s);\n',
                  ''),
    'statuses': ('MPI_Fint *', '{n}_c',
                 '  MPI_Status *{n}_c = lapis_f_statuses_in({n}, *{p});\n',
                 '  lapis_f_statuses_out({n}_c, {n}, *{p});\n'),
    'index*': ('MPI_Fint *', '{n}', '',
               '  if (rc == MPI_SUCCESS && *{n} >= 0) *{n} += 1; /* 1-based */\n'),
    'indices': ('MPI_Fint *', '{n}', '',
                '  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *{p} != MPI_UNDEFINED)\n'
                '    for (int i = 0; i < *{p}; ++i) {n}[i] += 1; /* 1-based */\n'),
    'user_fn': ('MPI_User_function *', '{n}', '', ''),
    'copy_fn': ('lapis_f_copy_fn *', '{n}', '', ''),
    'delete_fn': ('lapis_f_delete_fn *', '{n}', '', ''),
    'copy_int_fn': ('lapis_f_copy_int_fn *', '{n}', '', ''),
    'delete_int_fn': ('lapis_f_delete_int_fn *', '{n}', '', ''),
    'query_fn': ('lapis_f_grequest_query_fn *', '{n}', '', ''),
    'free_fn': ('lapis_f_grequest_free_fn *', '{n}', '', ''),
    'cancel_fn': ('lapis_f_grequest_cancel_fn *', '{n}', '', ''),
    # MPI-1's INTEGER addresses and displacements, where C has MPI_Aint.
    'int_aint*': ('MPI_Fint *', '&{n}_c', '  MPI_Aint {n}_c = 0;\n',
                  '  if (rc == MPI_SUCCESS) *{n} = (MPI_Fint){n}_c;\n'),
    'int_aint[]': ('MPI_Fint *', '{n}_c', '  MPI_Aint *{n}_c = lapis_f_aints_in({n}, *{p});\n',
                   '  free({n}_c);\n'),
    'errhandler_fn': ('MPI_Comm_errhandler_function *', '{n}', '', ''),
    'attr_in': ('MPI_Aint *', '(void *)(intptr_t)*{n}', '', ''),
    'attr_out': ('MPI_Aint *', '&{n}_c', '  void *{n}_c = NULL;\n',
                 '  if (rc == MPI_SUCCESS && {flag}_c) *{n} = lapis_f_attr_value({key}, {n}_c);\n'),
    'attr_out_int': ('MPI_Fint *', '&{n}_c', '  void *{n}_c = NULL;\n',
                     '  if (rc == MPI_SUCCESS && {flag}_c)\n'
                     '    *{n} = (MPI_Fint)lapis_f_attr_value({key}, {n}_c);\n'),
}

C_RESULT = {'double': 'double', 'aint': 'MPI_Aint'}


# Large-count forms mpi_f08 does not have, and why: their arguments are
# not the base function's with wider integers, so an overload derived from
# the base line cannot express them (MPI 4.0's Fortran bindings give them
# arguments of their own).
LARGE_SKIPPED = {
    'MPI_Op_create_c': 'a callback with an MPI_Count length (MPI_User_function_c)',
    'MPI_Register_datarep_c': 'conversion callbacks with MPI_Count counts',
}

# Large-count forms whose arguments are not the base function's but whose
# C parameters all have a plain Fortran kind: their arguments are read from
# the C prototype (the extra num_large_counts / max_large_counts /
# array_of_large_counts of MPI 4.0's type decoding).
LARGE_FROM_C = {'MPI_Type_get_envelope_c', 'MPI_Type_get_contents_c'}
C_PARAM_KIND = {'MPI_Datatype': 'handle', 'MPI_Count': 'count', 'MPI_Count *': 'count*',
                'int *': 'int*', 'int []': 'int[]', 'MPI_Aint []': 'aint[]',
                'MPI_Count []': 'count[]', 'MPI_Datatype []': 'handle[]'}


def c_prototypes(headers):
    """{name: [parameter, ...]} of every `int MPI_...(...);` prototype in
    `headers` (comments removed, blanks collapsed; the first declaration of
    a name wins), in the headers' order."""
    found = {}
    for header in headers:
        text = re.sub(r'/\*.*?\*/', '', open(header).read(), flags=re.S)
        for m in re.finditer(r'\bint\s+(MPI_\w+)\s*\(([^;]*?)\)\s*;', text):
            found.setdefault(m.group(1), [' '.join(p.split()) for p in m.group(2).split(',')])
    return found


def from_c_prototype(base, name, params):
    """The Function for large form `name` of `base` with kinds from its C
    parameters (C_PARAM_KIND)."""
    args = []
    for param in params:
        m = re.fullmatch(r'(.*?)\s*\b(\w+)\s*(\[\])?', param)
        ctype = ' '.join((m.group(1) + (' []' if m.group(3) else '')).replace('*', ' *').split())
        if ctype not in C_PARAM_KIND:
            sys.exit(f'gen_fortran.py: {name}: no Fortran kind for C parameter "{param}"')
        args.append(Arg(f'{C_PARAM_KIND[ctype]} {m.group(2)}'))
    f = Function(name, args, base.result, None)
    f.internal = True
    return f


def large_functions(functions, *headers):
    """MPI 4.0's large-count forms (MPI_Send_c ...) of the functions in
    api.txt, as the headers (mpi_proto_large.h, mpi_proto_io.h) declare them: the same arguments, with
    kind `count` / `count*` / `count[]` where C has MPI_Count / MPI_Count * /
    MPI_Count [], and `aint` / `aint*` / `aint[]` where C widens an int to
    MPI_Aint (disp_unit, the v forms' displacements). Only mpi_f08 has them
    (its _large overloads), through glue named lapis_mpi_send_c_ (no MPI
    name: mpif.h and the mpi module have none). LARGE_FROM_C lists those
    read from their C prototype instead, LARGE_SKIPPED those left out."""
    header = ' or '.join(headers)
    by_name = {f.name: f for f in functions}
    large = []
    for name, params in c_prototypes(headers).items():
        if not name.endswith('_c') or name in LARGE_SKIPPED:
            continue
        base = by_name.get(name[:-2])
        if base is None or base.call:
            sys.exit(f'{header}: {name} has no plain line in api.txt to follow')
        if name in LARGE_FROM_C:
            large.append(from_c_prototype(base, name, params))
            continue
        if len(params) != len(base.args):
            sys.exit(f'{header}: {name} does not take the arguments of {base.name}'
                     ' (add it to LARGE_SKIPPED, saying why)')
        f = copy.deepcopy(base)
        f.name, f.internal = base.name + '_c', True
        for a, param in zip(f.args, params):
            array = param.endswith('[]')
            param = param.removeprefix('const ')
            if param.startswith('MPI_Count'):
                a.kind = 'count[]' if array else 'count*' if '*' in param else 'count'
            elif param.startswith('MPI_Aint') and a.kind in ('int', 'int*', 'int[]'):
                a.kind = 'aint[]' if array else 'aint*' if '*' in param else 'aint'
        large.append(f)
    return large


def cptr_form(f):
    """f with its discarded pointer results (void_out) returned instead, as
    mpi_f08's TYPE(C_PTR), INTENT(OUT) (MPI_Buffer_detach's buffer_addr,
    MPI 4.0 section 19.3.5; MPICH's MPI_Buffer_detach_f08 takes it by
    reference too), or None when f has none. Its glue is internal:
    lapis_mpi_buffer_detach_cptr_, calling the same C function."""
    if not any(a.kind == 'void_out' for a in f.args):
        return None
    g = copy.deepcopy(f)
    g.call = f.call or f'{f.name}({", ".join("{" + a.name + "}" for a in f.args)})'
    g.name, g.internal = f.name + '_cptr', True
    for a in g.args:
        if a.kind == 'void_out':
            a.kind = 'cptr_out'
    return g


def input_buffers(functions, headers):
    """Marks (a.input = True) the choice arguments the C prototypes in
    `headers` declare `const void *`: what mpi_f08 declares INTENT(IN).
    Arguments are matched by name, so every choice argument of a function C
    declares must carry the C parameter's name."""
    params = {}
    for name, plist in c_prototypes(headers).items():
        named = (re.fullmatch(r'(.*?\W)(\w+)\s*(\[[^]]*\]\s*)*', p) for p in plist)
        params[name] = {n.group(2): n.group(1).strip() for n in named if n}
    for f in functions:
        c = params.get(f.name)
        for a in f.args:
            a.input = False
            if a.kind != 'choice' or c is None:
                continue
            if a.name not in c:
                sys.exit(f'gen_fortran.py: {f.name}: choice argument {a.name} is not a '
                         f'parameter of its C prototype ({", ".join(c)})')
            a.input = c[a.name].startswith('const ')


def glue_function(f):
    # The code is PMPI_X's (pmpi_x_); mpi_x_ is a weak alias of it, so a
    # program or tool that defines its own MPI_X (the profiling interface,
    # MPI 3.1 section 14.2) replaces it and still reaches Lapis through PMPI_X.
    if getattr(f, 'internal', False):
        return glue_code(f, 'lapis_' + f.name.lower() + '_', weak_alias=False)
    return glue_code(f, 'p' + f.name.lower() + '_', weak_alias=True)


def glue_code(f, symbol, weak_alias):
    tail = alias(symbol) if weak_alias else ''
    params, hidden, prelude, post, calls = [], [], '', '', {}
    for i, a in enumerate(f.args):
        ctype, call, pre, after = KINDS[a.kind]
        fields = {'n': a.name, 'p': a.param}
        if a.kind.startswith('attr_out'):
            fields['key'] = calls[f.args[i - 1].name]  # the key as C knows it
            fields['flag'] = f.args[i + 1].name
        params.append(ctype + a.name)
        if a.kind.startswith('string'):  # CHARACTER: gfortran passes its length last
            hidden.append(f'size_t {a.name}_len')
        calls[a.name] = call.format(**fields)
        prelude += pre.format(**fields)
        post += after.format(**fields)
    if f.call:
        call = re.sub(r'\{(\w+)\}', lambda m: calls[m.group(1)], f.call)
    else:
        call = f'{f.name}({", ".join(calls[a.name] for a in f.args)})'
    if f.result:
        signature = ', '.join(params) or 'void'
        return (f'{C_RESULT[f.result]} {symbol}({signature});\n'
                f'{C_RESULT[f.result]} {symbol}({signature}) {{\n  return {call};\n}}\n'
                + tail)
    signature = ', '.join(params + ['MPI_Fint *ierror'] + hidden)
    return (f'void {symbol}({signature});\n'
            f'void {symbol}({signature}) {{\n{prelude}  int rc = {call};\n{post}'
            f'  *ierror = rc;\n}}\n' + tail)


def alias(symbol):
    """mpi_send_, weak, for pmpi_send_ (MPICH's arrangement)."""
    return (f'extern __typeof__({symbol}) {symbol[1:]} '
            f'__attribute__((weak, alias("{symbol}")));\n')


def write_glue(api, large_header, out, *more_large_headers):
    functions = read_api(api)
    with open(out, 'w') as o:
        o.write('/* Generated by mpi/fortran/gen_fortran.py from api.txt: do not edit. */\n'
                '#include <stdint.h>\n#include <stdlib.h>\n\n'
                '#include "mpi.h"\n#include "mpi/fortran/fortran_support.h"\n\n')
        for f in functions + large_functions(functions, large_header, *more_large_headers):
            o.write(glue_function(f) + '\n')
            if cptr_form(f):
                o.write(glue_function(cptr_form(f)) + '\n')


# ---------------------------------------------------------------- constants

def write_constants_program(header, out):
    names = []
    with open(header) as h:
        for line in h:
            m = re.match(r'\s*#\s*define\s+(MPI_[A-Za-z0-9_]+)\s', line)
            if m and m.group(1) not in names:
                names.append(m.group(1))
    with open(out, 'w') as o:
        o.write('/* Generated by mpi/fortran/gen_fortran.py: prints the integer constants\n'
                ' * of mpi.h as "NAME VALUE" (pointers, functions and strings are left out). */\n'
                '#include <stddef.h>\n#include <stdio.h>\n\n#include "mpi.h"\n\n'
                '#define INTEGRAL(x) _Generic((x), int: 1, unsigned: 1, long: 1, '
                'unsigned long: 1, long long: 1, default: 0)\n'
                '#define EMIT(x) do { if (INTEGRAL(x)) printf("%s %lld\\n", #x, '
                '(long long)(intptr_t)(x)); } while (0)\n\n'
                'int main(void) {\n')
        for n in names:
            o.write(f'  EMIT({n});\n')
        o.write('  /* MPI_FILE_NULL is a null pointer in C, MPI_File_c2f\'s 0 in Fortran. */\n'
                '  printf("MPI_FILE_NULL 0\\n");\n')
        o.write('  /* Fortran only: a status is an INTEGER array. */\n'
                '  printf("MPI_STATUS_SIZE %zu\\n", sizeof(MPI_Status) / sizeof(MPI_Fint));\n')
        for field in ('MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR'):
            o.write(f'  printf("{field} %zu\\n", offsetof(MPI_Status, {field}) / '
                    f'sizeof(MPI_Fint) + 1);\n')
        o.write('  printf("MPI_ADDRESS_KIND %zu\\n", sizeof(MPI_Aint));\n'
                '  printf("MPI_OFFSET_KIND %zu\\n", sizeof(MPI_Offset));\n'
                '  printf("MPI_COUNT_KIND %zu\\n", sizeof(MPI_Count));\n'
                '  printf("MPI_INTEGER_KIND %zu\\n", sizeof(MPI_Fint));\n'
                '  return 0;\n}\n')


# Predefined attribute keys: in Fortran their value is C's + 1 (MPICH's
# mpif.h and modules; the odd C value marks a predefined key, the even one
# tells the library the caller is Fortran). lapis_f_keyval maps them back.
FORTRAN_KEYVALS = ('MPI_TAG_UB', 'MPI_HOST', 'MPI_IO', 'MPI_WTIME_IS_GLOBAL', 'MPI_UNIVERSE_SIZE',
                   'MPI_LASTUSEDCODE', 'MPI_APPNUM', 'MPI_WIN_BASE', 'MPI_WIN_SIZE',
                   'MPI_WIN_DISP_UNIT', 'MPI_WIN_CREATE_FLAVOR', 'MPI_WIN_MODEL')


# String lengths: Fortran's are one less than C's (no terminating NUL;
# MPI 3.1 section 17.2.5, and MPICH's values).
FORTRAN_STRING_LENGTHS = ('MPI_MAX_PROCESSOR_NAME', 'MPI_MAX_ERROR_STRING', 'MPI_MAX_OBJECT_NAME',
                          'MPI_MAX_INFO_KEY', 'MPI_MAX_INFO_VAL', 'MPI_MAX_PORT_NAME',
                          'MPI_MAX_LIBRARY_VERSION_STRING', 'MPI_MAX_DATAREP_STRING',
                          'MPI_MAX_PSET_NAME_LEN', 'MPI_MAX_STRINGTAG_LEN')


def read_constants(path, functions):
    """(name, value) pairs as Fortran sees them, without names Fortran cannot
    tell apart."""
    taken = {f.name.upper() for f in functions}
    constants = []
    with open(path) as f:
        for line in f:
            name, value = line.split()
            if name.upper() in taken:
                continue
            taken.add(name.upper())
            constants.append((name, int(value) + (name in FORTRAN_KEYVALS)
                              - (name in FORTRAN_STRING_LENGTHS)))
    return constants


# ---------------------------------------------------------------- Fortran

FORTRAN_RESULT = {'double': 'DOUBLE PRECISION', 'aint': 'INTEGER(KIND=MPI_ADDRESS_KIND)'}
# Declarations of dummy arguments in the `mpi` module's interfaces.
FORTRAN_DECL = {
    'int': 'INTEGER, INTENT(IN) :: {n}', 'handle': 'INTEGER, INTENT(IN) :: {n}',
    'keyval': 'INTEGER, INTENT(IN) :: {n}',
    'int*': 'INTEGER :: {n}', 'handle*': 'INTEGER :: {n}', 'index*': 'INTEGER :: {n}',
    'int[]': 'INTEGER :: {n}(*)', 'handle[]': 'INTEGER :: {n}(*)', 'indices': 'INTEGER :: {n}(*)',
    'ranges[]': 'INTEGER :: {n}(3, *)',
    'aint': 'INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: {n}',
    'handle_file': 'INTEGER, INTENT(IN) :: {n}', 'handle_file*': 'INTEGER :: {n}',
    'offset': 'INTEGER(KIND=MPI_OFFSET_KIND), INTENT(IN) :: {n}',
    'offset*': 'INTEGER(KIND=MPI_OFFSET_KIND) :: {n}',
    'aint*': 'INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}',
    'aint[]': 'INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}(*)',
    'count': 'INTEGER(KIND=MPI_COUNT_KIND), INTENT(IN) :: {n}',
    'count[]': 'INTEGER(KIND=MPI_COUNT_KIND) :: {n}(*)',
    'count*': 'INTEGER(KIND=MPI_COUNT_KIND) :: {n}',
    'choice': 'REAL :: {n}(*)', 'void_out': 'REAL :: {n}(*)',
    'logical': 'LOGICAL, INTENT(IN) :: {n}', 'logical*': 'LOGICAL :: {n}',
    'logical[]': 'LOGICAL :: {n}(*)',
    'string_in': 'CHARACTER(LEN=*), INTENT(IN) :: {n}', 'string_out': 'CHARACTER(LEN=*) :: {n}',
    'string_key': 'CHARACTER(LEN=*), INTENT(IN) :: {n}',
    'string_buf': 'CHARACTER(LEN=*) :: {n}',
    'string_argv': 'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)',
    'string_argvs': 'CHARACTER(LEN=*), INTENT(IN) :: {n}({p}, *)',
    'strings': 'CHARACTER(LEN=*), INTENT(IN) :: {n}(*)', 'errcodes': 'INTEGER :: {n}(*)',
    'weights': 'INTEGER :: {n}(*)',
    # mpif.h and `mpi` have no TYPE(MPI_Status): its bytes, as an array.
    'f08status': 'INTEGER :: {n}(MPI_STATUS_SIZE)',
    'f08status_in': 'INTEGER, INTENT(IN) :: {n}(MPI_STATUS_SIZE)',
    'fstatus': 'INTEGER :: {n}(MPI_STATUS_SIZE)',
    'fstatus_in': 'INTEGER, INTENT(IN) :: {n}(MPI_STATUS_SIZE)',
    'status': 'INTEGER :: {n}(MPI_STATUS_SIZE)', 'status_in': 'INTEGER :: {n}(MPI_STATUS_SIZE)',
    'statuses': 'INTEGER :: {n}(MPI_STATUS_SIZE, *)',
    'user_fn': 'EXTERNAL :: {n}', 'errhandler_fn': 'EXTERNAL :: {n}',
    'copy_fn': 'EXTERNAL :: {n}', 'delete_fn': 'EXTERNAL :: {n}',
    'copy_int_fn': 'EXTERNAL :: {n}', 'delete_int_fn': 'EXTERNAL :: {n}',
    'query_fn': 'EXTERNAL :: {n}', 'free_fn': 'EXTERNAL :: {n}', 'cancel_fn': 'EXTERNAL :: {n}',
    'int_aint*': 'INTEGER :: {n}', 'int_aint[]': 'INTEGER :: {n}(*)',
    'attr_in': 'INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: {n}',
    'attr_out': 'INTEGER(KIND=MPI_ADDRESS_KIND) :: {n}', 'attr_out_int': 'INTEGER :: {n}',
}
# Common blocks holding the values recognised by address (fortran_support.c),
# in MPICH's blocks and order (its mpif.h: /MPIPRIV1/ and /MPIPRIV2/), so a
# program compiled against MPICH's mpif.h or `mpi` module names the same
# storage (mpi/internal/fortran_commons.c defines it). Several COMMON
# statements naming one block extend it in order.
SPECIAL = [('MPI_BOTTOM', '', 'mpipriv1'),
           ('MPI_IN_PLACE', '', 'mpipriv1'),
           ('MPI_STATUS_IGNORE', '(MPI_STATUS_SIZE)', 'mpipriv1'),
           ('MPI_STATUSES_IGNORE', '(MPI_STATUS_SIZE,1)', 'mpipriv2'),
           ('MPI_ERRCODES_IGNORE', '(1)', 'mpipriv2'),
           # MPICH's /MPIFCMB5/ and /MPIFCMB9/ (fortran_support.c). An array
           # of one, so it can be passed where the interfaces of the modules
           # take the weights array (MPICH's mpi_f08 declares them so too).
           ('MPI_UNWEIGHTED', '(1)', 'mpifcmb5'),
           ('MPI_WEIGHTS_EMPTY', '(1)', 'mpifcmb9'),
           # MPI 4.1's, MPICH 4.2's /MPIFCMBa/ (fortran_support.c).
           ('MPI_BUFFER_AUTOMATIC', '(1)', 'mpifcmba')]
# The same for CHARACTER*1 values: MPICH's /MPIPRIVC/.
SPECIAL_CHARS = [('MPI_ARGVS_NULL', '(1,1)', 'mpiprivc'),
                 ('MPI_ARGV_NULL', '(1)', 'mpiprivc')]
# Predefined procedures a program passes as arguments (fortran_support.c).
PROCEDURES = ('MPI_COMM_NULL_COPY_FN', 'MPI_COMM_DUP_FN', 'MPI_COMM_NULL_DELETE_FN',
              'MPI_NULL_COPY_FN', 'MPI_DUP_FN', 'MPI_NULL_DELETE_FN',
              'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_DUP_FN', 'MPI_TYPE_NULL_DELETE_FN',
              'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_DUP_FN', 'MPI_WIN_NULL_DELETE_FN',
              'MPI_CONVERSION_FN_NULL')
KIND_PARAMETERS = ('MPI_ADDRESS_KIND', 'MPI_OFFSET_KIND', 'MPI_COUNT_KIND', 'MPI_INTEGER_KIND')
# Constants the standard gives a kind of their own: MPI_File_set_view's disp
# is INTEGER(KIND=MPI_OFFSET_KIND), and so is MPI_DISPLACEMENT_CURRENT
# (MPI 4.0 section 14.3), or a Fortran program passes 4 bytes where 8 are read.
OFFSET_KIND_CONSTANTS = ('MPI_DISPLACEMENT_CURRENT',)


def constant_kind(name, value, constants):
    """The kind suffix of integer constant `name` (`constants`: every
    constant's value, for the kind parameters')."""
    if name in OFFSET_KIND_CONSTANTS:
        return f'(KIND={constants["MPI_OFFSET_KIND"]})'
    return '' if name in KIND_PARAMETERS or abs(value) < 2**31 else '(KIND=8)'


# MPI_SIZEOF (MPI 3.1, 17.1.9) in both modules: a generic procedure with one
# specific per intrinsic type and kind gfortran has, each taking any rank.
SIZEOF_TYPES = ([('INTEGER', k) for k in (1, 2, 4, 8, 16)] +
                [('REAL', k) for k in (4, 8, 10, 16)] +
                [('COMPLEX', k) for k in (4, 8, 10, 16)] +
                [('LOGICAL', k) for k in (1, 2, 4, 8)])


def sizeof_procedures(optional_ierror):
    """(the generic interface, the module procedures) of MPI_SIZEOF."""
    specifics = [(f'lapis_sizeof_{t.lower()}{k}', f'{t}(KIND={k})') for t, k in SIZEOF_TYPES]
    specifics.append(('lapis_sizeof_character', 'CHARACTER(LEN=*)'))
    interface = ['  INTERFACE MPI_SIZEOF',
                 wrap('MODULE PROCEDURE ' + ', '.join(name for name, _ in specifics), '    '),
                 '  END INTERFACE']
    ierror = 'INTEGER, OPTIONAL, INTENT(OUT) :: ierror' if optional_ierror else 'INTEGER, INTENT(OUT) :: ierror'
    done = 'IF (PRESENT(ierror)) ierror = MPI_SUCCESS' if optional_ierror else 'ierror = MPI_SUCCESS'
    procedures = []
    for name, decl in specifics:
        # A CHARACTER counts one byte whatever its length, as in MPICH.
        size = '1' if decl.startswith('CHARACTER') else 'STORAGE_SIZE(x) / 8'
        procedures += [f'  SUBROUTINE {name}(x, size, ierror)', f'    {decl}, INTENT(IN) :: x(..)',
                       '    INTEGER, INTENT(OUT) :: size', f'    {ierror}',
                       f'    size = {size}', f'    {done}', f'  END SUBROUTINE {name}']
    return interface, procedures


# MPI_ALLOC_MEM also takes a TYPE(C_PTR) in the `mpi` module (MPI 3.1, 8.2):
# a generic of that name holds both interfaces (fortran_support.c has the
# second's mpi_alloc_mem_cptr_).
ALLOC_MEM_CPTR = ['    SUBROUTINE MPI_Alloc_mem_cptr(size, info, baseptr, ierror)',
                  '      USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR',
                  '      IMPORT',
                  '      IMPLICIT NONE',
                  '      INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: size',
                  '      INTEGER, INTENT(IN) :: info',
                  '      TYPE(C_PTR) :: baseptr',
                  '      INTEGER :: ierror',
                  '    END SUBROUTINE MPI_Alloc_mem_cptr']


def wrap(text, indent, width=100):
    """Free-form continuation lines for a long statement."""
    lines, line = [], indent
    for word in text.split(' '):
        if len(line) + len(word) + 3 > width and line.strip():
            lines.append(line + ' &')
            line = indent + '    '
        line += ('' if line.endswith(' ') or not line.strip() else ' ') + word
    return '\n'.join(lines + [line])


def write_mpif(api, constants_path, out):
    functions = read_api(api)
    with open(out, 'w') as o:
        o.write('! Lapis MPI for Fortran: mpif.h (fixed and free form).\n'
                '! Generated by mpi/fortran/gen_fortran.py at build time from mpi.h:\n'
                '! do not edit.\n')
        constants = read_constants(constants_path, functions)
        for name, value in constants:
            kind = constant_kind(name, value, dict(constants))
            o.write(f'      INTEGER{kind} {name}\n      PARAMETER ({name}={value})\n')
        for name, dims, block in SPECIAL:
            o.write(f'      INTEGER {name}{dims}\n      COMMON /{block}/ {name}\n')
        for name, dims, block in SPECIAL_CHARS:
            o.write(f'      CHARACTER*1 {name}{dims}\n      COMMON /{block}/ {name}\n')
        for f in functions:
            if f.result:
                for name in (f.name.upper(), 'P' + f.name.upper()):
                    o.write(f'      {FORTRAN_RESULT[f.result]} {name}\n'
                            f'      EXTERNAL {name}\n')
        for name in PROCEDURES:
            o.write(f'      EXTERNAL {name}\n')


def write_module(api, constants_path, out):
    functions = read_api(api)
    o = ['! Lapis MPI for Fortran: the `mpi` module.',
         '! Generated by mpi/fortran/gen_fortran.py at build time: do not edit.',
         'MODULE mpi', '  IMPLICIT NONE', '  PRIVATE :: lapis_mpi_unused']
    names = []
    constants = read_constants(constants_path, functions)
    for name, value in constants:
        kind = constant_kind(name, value, dict(constants))
        o.append(f'  INTEGER{kind}, PARAMETER :: {name} = {value}')
    for name, dims, block in SPECIAL:
        o.append(f'  INTEGER :: {name}{dims}')
        o.append(f'  COMMON /{block}/ {name}')
    for name, dims, block in SPECIAL_CHARS:
        o.append(f'  CHARACTER(LEN=1) :: {name}{dims}')
        o.append(f'  COMMON /{block}/ {name}')
    o.append(wrap(f'EXTERNAL :: {", ".join(PROCEDURES)}', '  '))
    sizeof_interface, sizeof_bodies = sizeof_procedures(False)
    o += sizeof_interface
    o.append('  INTERFACE')
    # Functions (MPI_Wtime ...) also under their profiling names: a program
    # calls PMPI_WTIME() as a function (MPICH's module has these two too).
    profiled = [copy.copy(f) for f in functions if f.result]
    for f in profiled:
        f.name = 'P' + f.name
    for f in functions + profiled:
        if f.name == 'MPI_Alloc_mem':
            o += ['  END INTERFACE', '  INTERFACE MPI_Alloc_mem']
        dummies = [a.name for a in f.args] + ([] if f.result else ['ierror'])
        head = (f'{FORTRAN_RESULT[f.result]} FUNCTION' if f.result else 'SUBROUTINE')
        o.append(wrap(f'{head} {f.name}({", ".join(dummies)})', '    '))
        o.append('      IMPORT')
        o.append('      IMPLICIT NONE')
        for a in f.args:
            if a.kind in ('choice', 'void_out'):
                o.append(f'      !GCC$ ATTRIBUTES NO_ARG_CHECK :: {a.name}')
            o.append('      ' + FORTRAN_DECL[a.kind].format(n=a.name, p=a.param))
        if not f.result:
            o.append('      INTEGER :: ierror')
        o.append(f'    END {"FUNCTION" if f.result else "SUBROUTINE"} {f.name}')
        if f.name == 'MPI_Alloc_mem':
            o += ALLOC_MEM_CPTR + ['  END INTERFACE', '  INTERFACE']
    o += ['  END INTERFACE', 'CONTAINS'] + sizeof_bodies + [
          '  ! A module procedure, so the module has an object file to link.',
          '  SUBROUTINE lapis_mpi_unused()', '  END SUBROUTINE lapis_mpi_unused',
          'END MODULE mpi', '']
    with open(out, 'w') as f:
        f.write('\n'.join(o))


def main(argv):
    modes = {'constants-program': (write_constants_program, 2), 'glue': (write_glue, 3),
             'mpif': (write_mpif, 3), 'module': (write_module, 3)}
    # The glue also takes more headers with large-count forms (mpi_proto_io.h).
    if (len(argv) < 2 or argv[1] not in modes or len(argv) < modes[argv[1]][1] + 2 or
            (argv[1] != 'glue' and len(argv) != modes[argv[1]][1] + 2)):
        sys.exit(__doc__)
    modes[argv[1]][0](*argv[2:])


if __name__ == '__main__':
    main(sys.argv)
