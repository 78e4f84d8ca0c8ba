#pragma once
// Error classes, codes and strings a program adds (MPI_Add_error_class /
// _code / _string). They are numbered together after MPICH's last class
// (MPICH_ERR_LAST_CLASS + 1, + 2, ...): a class is also a code of itself,
// and MPI_LASTUSEDCODE follows the last one handed out.

#include <string>

namespace mpi {

// A new class / a new code of `cls` (false: cls is not a class).
int add_user_class();
bool add_user_code(int cls, int& code);
// Whether `code` was added by the program; its class and string.
bool is_user_code(int code);
int user_code_class(int code);
const std::string& user_code_string(int code);
void set_user_code_string(int code, std::string text);
// MPI_Remove_error_class / _code / _string (MPI 4.1; MPICH's
// MPIX_Delete_error_*): null once done, else why it was refused. Numbers
// are never handed out again, so MPI_LASTUSEDCODE stays where it is.
const char* remove_user_class(int cls);
const char* remove_user_code(int code);
const char* remove_user_string(int code);

}  // namespace mpi
