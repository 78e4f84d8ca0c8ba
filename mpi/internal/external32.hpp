#pragma once
// MPI's "external32" data representation (MPI 3.1 section 13.5.2): every
// primitive element big-endian with the standard's size (C long and
// unsigned long 4 bytes, wchar_t 2, long double IEEE binary128 in 16 bytes,
// everything else its native size here), elements back to back in typemap
// order. Conversion walks the type's primitive-element runs (ElementRun:
// Ext32) over its natively packed bytes.

#include <cstdint>

#include "mpi/internal/datatype.hpp"

namespace mpi {

// Bytes one instance of `type` takes in external32.
std::int64_t external32_size(const Datatype& type);

// Packs `count` instances at `in` into `out` (count * external32_size
// bytes). Returns MPI_SUCCESS, or MPI_ERR_CONVERSION (detail recorded) when
// a C long, unsigned long or wchar_t value does not fit its external32 size
// (what was converted before it is written), MPI_ERR_NO_MEM.
int pack_external32(const Datatype& type, const void* in, std::int64_t count, char* out);

// Unpacks `count` instances from `in` (count * external32_size bytes) into
// `out`. MPI_SUCCESS or MPI_ERR_NO_MEM.
int unpack_external32(const Datatype& type, const char* in, std::int64_t count, void* out);

}  // namespace mpi
