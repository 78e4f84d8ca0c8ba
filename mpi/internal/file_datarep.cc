#include "mpi/internal/file_datarep.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <vector>

#include "mpi/internal/errors.hpp"

namespace mpi::io {
namespace {

// Registrations live until the process ends (MPI has no way to remove
// one), so pointers to them stay valid in views.
std::map<std::string, UserDatarep> g_datareps;

// The predefined types `type` is made of, added to `out` (decoded through
// the envelope and contents calls; derived children they return are freed).
int predefined_parts(MPI_Datatype type, std::set<MPI_Datatype>& out) {
  MPI_Count ni = 0, na = 0, nc = 0, nt = 0;
  int combiner = 0;
  if (int rc = MPI_Type_get_envelope_c(type, &ni, &na, &nc, &nt, &combiner)) return rc;
  if (combiner == MPI_COMBINER_NAMED) {
    out.insert(type);
    return MPI_SUCCESS;
  }
  std::vector<int> ints(static_cast<std::size_t>(ni));
  std::vector<MPI_Aint> aints(static_cast<std::size_t>(na));
  std::vector<MPI_Count> counts(static_cast<std::size_t>(nc));
  std::vector<MPI_Datatype> children(static_cast<std::size_t>(nt));
  if (int rc = MPI_Type_get_contents_c(type, ni, na, nc, nt, ints.data(), aints.data(),
                                       counts.data(), children.data())) {
    return rc;
  }
  int rc = MPI_SUCCESS;
  for (MPI_Datatype child : children) {
    if (rc == MPI_SUCCESS) rc = predefined_parts(child, out);
    MPI_Count cni = 0, cna = 0, cnc = 0, cnt = 0;
    int child_combiner = MPI_COMBINER_NAMED;
    (void)MPI_Type_get_envelope_c(child, &cni, &cna, &cnc, &cnt, &child_combiner);
    if (child_combiner != MPI_COMBINER_NAMED) MPI_Type_free(&child);
  }
  return rc;
}

int conversion_failed(const char* which, int code) {
  return fail(MPI_ERR_CONVERSION, "the datarep's {} conversion function returned {}", which, code);
}

// Calls `convert` (int count) on [0, count) in pieces of at most INT_MAX
// items, each at its position.
template <typename Fn>
int in_int_pieces(MPI_Count count, MPI_Count item_bytes, char* filebuf, Fn convert) {
  for (MPI_Count done = 0; done < count;) {
    const MPI_Count n = std::min<MPI_Count>(count - done, INT_MAX);
    if (int rc = convert(static_cast<int>(n), filebuf + done * item_bytes, done)) return rc;
    done += n;
  }
  return MPI_SUCCESS;
}

}  // namespace

int register_datarep(const std::string& name, const UserDatarep& rep) {
  if (name == "native" || name == "internal" || name == "external32" || g_datareps.count(name)) {
    return fail(MPI_ERR_DUP_DATAREP, "datarep=\"{}\" is already defined", name);
  }
  g_datareps.emplace(name, rep);
  return MPI_SUCCESS;
}

const UserDatarep* find_datarep(const std::string& name) {
  const auto it = g_datareps.find(name);
  return it == g_datareps.end() ? nullptr : &it->second;
}

int check_datarep_type(const UserDatarep& rep, MPI_Datatype type, const char* arg) {
  std::set<MPI_Datatype> parts;
  if (int rc = predefined_parts(type, parts)) return rc;
  for (MPI_Datatype part : parts) {
    MPI_Count size = 0;
    MPI_Aint file_extent = 0;
    if (int rc = MPI_Type_size_c(part, &size)) return rc;
    if (int rc = rep.extent(part, &file_extent, rep.extra_state)) {
      return fail(MPI_ERR_CONVERSION, "the datarep's dtype_file_extent_fn returned {} for {}'s "
                  "predefined type {:#x}", rc, arg, part);
    }
    if (file_extent != size) {
      return fail(MPI_ERR_UNSUPPORTED_DATAREP,
                  "{}: its predefined type {:#x} has file extent {} in this datarep but size {} "
                  "in memory (Lapis converts only representations that keep every size)",
                  arg, part, file_extent, size);
    }
  }
  return MPI_SUCCESS;
}

namespace {

// One direction's function: the MPI_Count form when registered so, else
// the int form in pieces.
int convert(MPI_Datarep_conversion_function_c* fn_c, MPI_Datarep_conversion_function* fn,
            const char* which, void* userbuf, MPI_Datatype type, MPI_Count count, void* filebuf,
            void* extra_state) {
  if (fn_c != nullptr) {
    const int rc = fn_c(userbuf, type, count, filebuf, 0, extra_state);
    return rc == MPI_SUCCESS ? rc : conversion_failed(which, rc);
  }
  MPI_Count size = 0;
  MPI_Type_size_c(type, &size);
  return in_int_pieces(count, size, static_cast<char*>(filebuf),
                       [&](int n, char* at, MPI_Count position) {
                         const int rc = fn(userbuf, type, n, at, position, extra_state);
                         return rc == MPI_SUCCESS ? rc : conversion_failed(which, rc);
                       });
}

}  // namespace

int convert_for_write(const UserDatarep& rep, const void* userbuf, MPI_Datatype type,
                      MPI_Count count, void* filebuf) {
  // The standard's signature is not const; a write function only reads it.
  return convert(rep.write_c, rep.write, "write", const_cast<void*>(userbuf), type, count,
                 filebuf, rep.extra_state);
}

int convert_after_read(const UserDatarep& rep, void* userbuf, MPI_Datatype type,
                       MPI_Count count, void* filebuf) {
  return convert(rep.read_c, rep.read, "read", userbuf, type, count, filebuf, rep.extra_state);
}

}  // namespace mpi::io
