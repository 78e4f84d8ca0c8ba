#include "mpi/internal/external32.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <cwchar>

#include "mpi.h"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {
namespace {

static_assert(sizeof(long) == 8 && sizeof(wchar_t) == 4 && sizeof(long double) == 16,
              "external32 conversion assumes x86-64 Linux (LP64, 80-bit long double)");

std::int64_t external_size(const ElementRun& r) {
  switch (r.ext32) {
    case Ext32::long_4:
    case Ext32::ulong_4:
      return 4;
    case Ext32::wchar_2:
      return 2;
    case Ext32::long_double:
      return 16;
    case Ext32::same_size:
      break;
  }
  return r.elem_size;
}

// Big-endian store/load of the low `n` bytes of v.
void put_be(char* out, std::uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
}
std::uint64_t get_be(const char* in, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

void reverse_copy(const char* in, char* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[n - 1 - i];
}

// One run of native elements (packed) to external32; false on overflow.
bool to_external(const ElementRun& r, const char* in, char* out, std::int64_t n) {
  switch (r.ext32) {
    case Ext32::same_size:
      if (r.elem_size == 1) {
        std::memcpy(out, in, static_cast<std::size_t>(n));
      } else {
        for (std::int64_t i = 0; i < n; ++i) {
          reverse_copy(in + i * r.elem_size, out + i * r.elem_size, r.elem_size);
        }
      }
      return true;
    case Ext32::long_4:
      for (std::int64_t i = 0; i < n; ++i) {
        long v;
        std::memcpy(&v, in + i * 8, 8);
        if (v < INT32_MIN || v > INT32_MAX) {
          fail(MPI_ERR_CONVERSION, "the long value {} does not fit external32's 4 bytes", v);
          return false;
        }
        put_be(out + i * 4, static_cast<std::uint32_t>(static_cast<std::int32_t>(v)), 4);
      }
      return true;
    case Ext32::ulong_4:
      for (std::int64_t i = 0; i < n; ++i) {
        unsigned long v;
        std::memcpy(&v, in + i * 8, 8);
        if (v > UINT32_MAX) {
          fail(MPI_ERR_CONVERSION, "the unsigned long value {} does not fit external32's 4 bytes",
               v);
          return false;
        }
        put_be(out + i * 4, v, 4);
      }
      return true;
    case Ext32::wchar_2:
      for (std::int64_t i = 0; i < n; ++i) {
        wchar_t v;
        std::memcpy(&v, in + i * 4, 4);
        if (v < 0 || v > 0xffff) {
          fail(MPI_ERR_CONVERSION, "the wchar_t value {:#x} does not fit external32's 2 bytes",
               static_cast<std::uint32_t>(v));
          return false;
        }
        put_be(out + i * 2, static_cast<std::uint64_t>(v), 2);
      }
      return true;
    case Ext32::long_double:
      for (std::int64_t i = 0; i < n; ++i) {
        long double v;
        std::memcpy(&v, in + i * 16, 10);  // the x87 value; the rest is padding
        const __float128 q = static_cast<__float128>(v);
        char bytes[16];
        std::memcpy(bytes, &q, 16);
        reverse_copy(bytes, out + i * 16, 16);
      }
      return true;
  }
  return true;
}

void from_external(const ElementRun& r, const char* in, char* out, std::int64_t n) {
  switch (r.ext32) {
    case Ext32::same_size:
      if (r.elem_size == 1) {
        std::memcpy(out, in, static_cast<std::size_t>(n));
      } else {
        for (std::int64_t i = 0; i < n; ++i) {
          reverse_copy(in + i * r.elem_size, out + i * r.elem_size, r.elem_size);
        }
      }
      return;
    case Ext32::long_4:
      for (std::int64_t i = 0; i < n; ++i) {
        const long v = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_be(in + i * 4, 4)));
        std::memcpy(out + i * 8, &v, 8);
      }
      return;
    case Ext32::ulong_4:
      for (std::int64_t i = 0; i < n; ++i) {
        const unsigned long v = get_be(in + i * 4, 4);
        std::memcpy(out + i * 8, &v, 8);
      }
      return;
    case Ext32::wchar_2:
      for (std::int64_t i = 0; i < n; ++i) {
        const wchar_t v = static_cast<wchar_t>(get_be(in + i * 2, 2));
        std::memcpy(out + i * 4, &v, 4);
      }
      return;
    case Ext32::long_double:
      for (std::int64_t i = 0; i < n; ++i) {
        char bytes[16];
        reverse_copy(in + i * 16, bytes, 16);
        __float128 q;
        std::memcpy(&q, bytes, 16);
        const long double v = static_cast<long double>(q);
        std::memset(out + i * 16, 0, 16);
        std::memcpy(out + i * 16, &v, 10);
      }
      return;
  }
}

}  // namespace

std::int64_t external32_size(const Datatype& type) {
  std::int64_t n = 0;
  for (const ElementRun& r : type.flat().elements) n += external_size(r) * r.count;
  return n * type.flat().element_reps;
}

int pack_external32(const Datatype& type, const void* in, std::int64_t count, char* out) {
  Staging native;
  if (!native.try_allocate(static_cast<std::size_t>(count * type.size()))) {
    return fail(MPI_ERR_NO_MEM, "no memory to stage {} bytes", count * type.size());
  }
  pack(type, in, count, native.data.get());
  const char* src = native.data.get();
  const std::int64_t rows = count * type.flat().element_reps;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (const ElementRun& r : type.flat().elements) {
      if (!to_external(r, src, out, r.count)) return MPI_ERR_CONVERSION;
      src += r.elem_size * r.count;
      out += external_size(r) * r.count;
    }
  }
  return MPI_SUCCESS;
}

int unpack_external32(const Datatype& type, const char* in, std::int64_t count, void* out) {
  Staging native;
  const std::int64_t bytes = count * type.size();
  if (!native.try_allocate(static_cast<std::size_t>(bytes))) {
    return fail(MPI_ERR_NO_MEM, "no memory to stage {} bytes", bytes);
  }
  char* dst = native.data.get();
  const std::int64_t rows = count * type.flat().element_reps;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (const ElementRun& r : type.flat().elements) {
      from_external(r, in, dst, r.count);
      in += external_size(r) * r.count;
      dst += r.elem_size * r.count;
    }
  }
  unpack(type, out, count, native.data.get(), bytes);
  return MPI_SUCCESS;
}

}  // namespace mpi
