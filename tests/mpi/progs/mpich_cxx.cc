// MPICH's C++ bindings (MPI::, Debian's libmpichcxx.so.12) on Lapis: built
// by mpicxx.mpich at test time (tests/mpi/mpich_abi_test). What the bindings
// need from the library beyond the C interface is checked here: user ops,
// error handlers and attribute callbacks written in C++ (MPICH's hooks
// MPII_Op_set_cxx, MPII_Errhandler_set_cxx, MPII_Keyval_set_proxy) and
// MPI::ERRORS_THROW_EXCEPTIONS. Every rank prints OK, or FAILED and why.
#include <mpi.h>

#include <cstdio>

// MPICH's hooks (what libmpichcxx calls), for the bad-input case below.
extern "C" void MPII_Op_set_cxx(MPI_Op, void (*)(void));
extern "C" void MPII_Errhandler_set_cxx(MPI_Errhandler, void (*)(void));
extern "C" void MPII_Keyval_set_proxy(int, void*, void*);

namespace {

int g_failures = 0;
int g_rank = 0;

void check(bool ok, const char* what) {
  if (ok) return;
  std::printf("FAILED rank %d: %s\n", g_rank, what);
  ++g_failures;
}

// Associative, not commutative: decimal concatenation of (value, 10^digits)
// pairs, so that the result shows the order of the operands.
MPI::Datatype g_pair;
bool g_op_type_ok = true;
void concatenate(const void* in, void* inout, int len, const MPI::Datatype& type) {
  if (type != g_pair) g_op_type_ok = false;
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < 2 * len; i += 2) {
    b[i] = a[i] * b[i + 1] + b[i];
    b[i + 1] *= a[i + 1];
  }
}

int g_comm_errors = 0;
int g_last_code = 0;
bool g_handler_comm_ok = true;
MPI::Intracomm* g_expected_comm = nullptr;
void comm_handler(MPI::Comm& comm, int* code, ...) {
  ++g_comm_errors;
  g_last_code = *code;
  if (comm != *g_expected_comm) g_handler_comm_ok = false;
}

int g_win_errors = 0;
void win_handler(MPI::Win&, int* code, ...) {
  ++g_win_errors;
  g_last_code = *code;
}

int g_copies = 0, g_deletes = 0;
int copy_attr(const MPI::Comm& old, int, void* extra, void* in, void* out, bool& flag) {
  ++g_copies;
  if (old != MPI::COMM_WORLD || extra != &g_copies) return MPI::ERR_OTHER;
  *static_cast<void**>(out) = static_cast<char*>(in) + 1;
  flag = true;
  return MPI::SUCCESS;
}
int delete_attr(MPI::Comm&, int, void*, void* extra) {
  ++g_deletes;
  return extra == &g_copies ? MPI::SUCCESS : MPI::ERR_OTHER;
}

int g_type_copies = 0, g_type_deletes = 0;
int type_copy(const MPI::Datatype& old, int, void*, void* in, void* out, bool& flag) {
  ++g_type_copies;
  *static_cast<void**>(out) = in;
  flag = old == MPI::DOUBLE;
  return MPI::SUCCESS;
}
int type_delete(MPI::Datatype&, int, void*, void*) {
  ++g_type_deletes;
  return MPI::SUCCESS;
}

void user_ops(int size) {
  g_pair = MPI::INT.Create_contiguous(2);
  g_pair.Commit();
  MPI::Op op;
  op.Init(concatenate, false);
  // Rank r contributes its digit r+1: rank order gives 1, 12, 123, ...
  int mine[2] = {g_rank + 1, 10}, got[2] = {-1, -1}, expect = 0;
  for (int r = 0; r < size; ++r) expect = 10 * expect + r + 1;
  MPI::COMM_WORLD.Allreduce(mine, got, 1, g_pair, op);
  check(got[0] == expect, "Allreduce with a C++ user op keeps the rank order");
  check(g_op_type_ok, "the C++ user op received the datatype");
  op.Free();
  g_pair.Free();
}

void comm_errhandlers() {
  MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
  g_expected_comm = &dup;
  MPI::Errhandler eh = MPI::Comm::Create_errhandler(comm_handler);
  dup.Set_errhandler(eh);
  int x = 0;
  dup.Send(&x, 1, MPI::INT, dup.Get_size() + 5, 0);  // invalid rank
  check(g_comm_errors == 1, "a C++ communicator handler runs once per error");
  check(MPI::Get_error_class(g_last_code) == MPI::ERR_RANK, "the handler got MPI_ERR_RANK");
  check(g_handler_comm_ok, "the handler got the communicator");

  dup.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
  check(dup.Get_errhandler() == MPI::ERRORS_THROW_EXCEPTIONS,
        "Get_errhandler returns MPI::ERRORS_THROW_EXCEPTIONS");
  bool thrown = false;
  try {
    dup.Send(&x, 1, MPI::INT, dup.Get_size() + 5, 0);
  } catch (MPI::Exception& e) {
    thrown = e.Get_error_class() == MPI::ERR_RANK;
  }
  check(thrown, "MPI::ERRORS_THROW_EXCEPTIONS throws MPI::Exception with MPI_ERR_RANK");
  check(g_comm_errors == 1, "the replaced handler is not called");
  eh.Free();
  dup.Free();
}

void win_errhandlers() {
  int cell = 0;
  MPI::Win win = MPI::Win::Create(&cell, sizeof cell, sizeof cell, MPI::INFO_NULL,
                                  MPI::COMM_WORLD);
  MPI::Errhandler eh = MPI::Win::Create_errhandler(win_handler);
  win.Set_errhandler(eh);
  win.Call_errhandler(MPI::ERR_OTHER);
  check(g_win_errors == 1, "a C++ window handler runs once");
  check(g_last_code == MPI::ERR_OTHER, "the window handler got the code");
  eh.Free();
  win.Free();
}

// Handles that are not the bindings' objects are ignored: a predefined op
// and handler keep working as C's, and nothing crashes.
void bad_hooks() {
  MPII_Op_set_cxx(MPI_OP_NULL, nullptr);
  MPII_Op_set_cxx(MPI_SUM, nullptr);
  MPII_Errhandler_set_cxx(MPI_ERRHANDLER_NULL, nullptr);
  MPII_Errhandler_set_cxx(MPI_ERRORS_RETURN, nullptr);
  MPII_Keyval_set_proxy(MPI_KEYVAL_INVALID, nullptr, nullptr);
  MPII_Keyval_set_proxy(12345, nullptr, nullptr);
  int one = 1, sum = 0;
  MPI::COMM_WORLD.Allreduce(&one, &sum, 1, MPI::INT, MPI::SUM);
  check(sum == MPI::COMM_WORLD.Get_size(), "MPI_SUM after hooks given bad handles");
  MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
  dup.Set_errhandler(MPI::ERRORS_RETURN);
  int x = 0;
  dup.Send(&x, 1, MPI::INT, dup.Get_size() + 5, 0);  // returns the code: no handler runs
  dup.Free();
}

void keyvals() {
  const int key = MPI::Comm::Create_keyval(copy_attr, delete_attr, &g_copies);
  static char value[2];
  MPI::COMM_WORLD.Set_attr(key, value);
  MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
  check(g_copies == 1, "Dup ran the C++ copy callback");
  void* got = nullptr;
  const bool found = dup.Get_attr(key, &got);
  check(found && got == value + 1, "the copy's value reached the duplicate");
  dup.Free();
  check(g_deletes == 1, "Free ran the C++ delete callback");
  MPI::COMM_WORLD.Delete_attr(key);
  check(g_deletes == 2, "Delete_attr ran the C++ delete callback");
  MPI::Comm::Free_keyval(const_cast<int&>(key));

  const int tkey = MPI::Datatype::Create_keyval(type_copy, type_delete, nullptr);
  MPI::Datatype dbl = MPI::DOUBLE.Dup();
  static char tvalue;
  MPI::DOUBLE.Set_attr(tkey, &tvalue);
  MPI::Datatype dbl2 = MPI::DOUBLE.Dup();
  check(g_type_copies == 1, "a datatype Dup ran the C++ copy callback");
  void* tgot = nullptr;
  check(dbl2.Get_attr(tkey, &tgot) && tgot == &tvalue, "the datatype copy kept the value");
  dbl2.Free();
  check(g_type_deletes == 1, "a datatype Free ran the C++ delete callback");
  MPI::DOUBLE.Delete_attr(tkey);
  dbl.Free();
  int k = tkey;
  MPI::Datatype::Free_keyval(k);
}

}  // namespace

int main(int argc, char** argv) {
  MPI::Init(argc, argv);
  g_rank = MPI::COMM_WORLD.Get_rank();
  const int size = MPI::COMM_WORLD.Get_size();
  user_ops(size);
  comm_errhandlers();
  win_errhandlers();
  keyvals();
  bad_hooks();
  MPI::COMM_WORLD.Barrier();
  if (g_failures == 0) std::printf("OK\n");
  MPI::Finalize();
  return g_failures == 0 ? 0 : 1;
}
