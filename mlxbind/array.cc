// array.cc: array handles, host bytes in and out, eval.
#include "shim_internal.hpp"

namespace emily {

namespace {
constexpr mx::Dtype kDtypes[] = {
    mx::bool_,   mx::uint8,   mx::uint16,  mx::uint32,   mx::uint64,
    mx::int8,    mx::int16,   mx::int32,   mx::int64,    mx::float16,
    mx::float32, mx::float64, mx::bfloat16, mx::complex64,
};
static_assert(sizeof(kDtypes) / sizeof(kDtypes[0]) == EMILY_DTYPE_COUNT);

// from_typed copies n elements of type T. MLX's iterator constructor
// converts element by element from the iterator's type, so the bytes must
// be read as the dtype's own C++ type to be copied unchanged.
template <typename T>
mx::array from_typed(const void* data, mx::Shape shape, mx::Dtype dt) {
  return mx::array(static_cast<const T*>(data), std::move(shape), dt);
}
}  // namespace

mx::Dtype dtype_from_code(int64_t code) {
  if (code < 0 || code >= EMILY_DTYPE_COUNT) {
    throw std::invalid_argument("unknown dtype code " + std::to_string(code));
  }
  return kDtypes[code];
}

int dtype_code(mx::Dtype d) { return static_cast<int>(d.val()); }

emily_array wrap(mx::array a) { return new emily_array_s{std::move(a)}; }

}  // namespace emily

extern "C" {

int emily_array_from_bytes(emily_array* out, const void* data, size_t nbytes,
                           const int64_t* shape, int ndim, int dtype,
                           char** err) {
  return emily::guarded(err, [&] {
    mx::Dtype dt = emily::dtype_from_code(dtype);
    mx::Shape s = mx::Shape(shape, shape + ndim);
    size_t size = 1;
    for (auto d : s) {
      if (d < 0) throw std::invalid_argument("negative dimension in shape");
      if (d != 0 && size > SIZE_MAX / static_cast<size_t>(d) / dt.size()) {
        throw std::invalid_argument("shape has more elements than memory can address");
      }
      size *= static_cast<size_t>(d);
    }
    if (size * dt.size() != nbytes) {
      throw std::invalid_argument(
          "data has " + std::to_string(nbytes) + " bytes, shape and dtype need " +
          std::to_string(size * dt.size()));
    }
    switch (dt.val()) {
      case mx::Dtype::Val::bool_: *out = emily::wrap(emily::from_typed<bool>(data, s, dt)); break;
      case mx::Dtype::Val::uint8: *out = emily::wrap(emily::from_typed<uint8_t>(data, s, dt)); break;
      case mx::Dtype::Val::uint16: *out = emily::wrap(emily::from_typed<uint16_t>(data, s, dt)); break;
      case mx::Dtype::Val::uint32: *out = emily::wrap(emily::from_typed<uint32_t>(data, s, dt)); break;
      case mx::Dtype::Val::uint64: *out = emily::wrap(emily::from_typed<uint64_t>(data, s, dt)); break;
      case mx::Dtype::Val::int8: *out = emily::wrap(emily::from_typed<int8_t>(data, s, dt)); break;
      case mx::Dtype::Val::int16: *out = emily::wrap(emily::from_typed<int16_t>(data, s, dt)); break;
      case mx::Dtype::Val::int32: *out = emily::wrap(emily::from_typed<int32_t>(data, s, dt)); break;
      case mx::Dtype::Val::int64: *out = emily::wrap(emily::from_typed<int64_t>(data, s, dt)); break;
      case mx::Dtype::Val::float16: *out = emily::wrap(emily::from_typed<mx::float16_t>(data, s, dt)); break;
      case mx::Dtype::Val::float32: *out = emily::wrap(emily::from_typed<float>(data, s, dt)); break;
      case mx::Dtype::Val::float64: *out = emily::wrap(emily::from_typed<double>(data, s, dt)); break;
      case mx::Dtype::Val::bfloat16: *out = emily::wrap(emily::from_typed<mx::bfloat16_t>(data, s, dt)); break;
      case mx::Dtype::Val::complex64: *out = emily::wrap(emily::from_typed<mx::complex64_t>(data, s, dt)); break;
    }
  });
}

int emily_array_share(emily_array* out, emily_array a, char** err) {
  return emily::guarded(err, [&] { *out = emily::wrap(a->a); });
}

void emily_array_free(emily_array a) {
  char* ignored = nullptr;
  emily::guarded(&ignored, [&] { delete a; });
  free(ignored);
}

void emily_array_free_n(const emily_array* a, int n) {
  char* ignored = nullptr;
  emily::guarded(&ignored, [&] {
    for (int i = 0; i < n; ++i) delete a[i];
  });
  free(ignored);
}

void emily_arrays_meta(const emily_array* a, int n, int64_t* out, int stride) {
  for (int i = 0; i < n; ++i, out += stride) {
    const auto& s = a[i]->a.shape();
    int ndim = static_cast<int>(s.size());
    out[0] = emily::dtype_code(a[i]->a.dtype());
    out[1] = ndim;
    if (ndim <= stride - 2) {
      for (int k = 0; k < ndim; ++k) out[2 + k] = s[k];
    }
  }
}

// Shape and dtype are fixed when an array is made and are read without
// evaluating, so this needs no lock beyond the Go side's liveness.
int emily_array_meta(emily_array a, int* dtype, int64_t* dims, int cap) {
  const auto& s = a->a.shape();
  *dtype = emily::dtype_code(a->a.dtype());
  int ndim = static_cast<int>(s.size());
  if (ndim <= cap) {
    for (int i = 0; i < ndim; ++i) dims[i] = s[i];
  }
  return ndim;
}

int emily_array_to_bytes(emily_array a, void* dst, size_t nbytes, int stream,
                         char** err) {
  return emily::guarded(err, [&] {
    mx::array x = a->a;
    if (x.nbytes() != nbytes) {
      throw std::invalid_argument("destination has " + std::to_string(nbytes) +
                                  " bytes, array has " + std::to_string(x.nbytes()));
    }
    x.eval();
    if (!x.flags().row_contiguous) {
      x = mx::contiguous(x, false, emily::stream_at(stream));
      x.eval();
    }
    // A device buffer is copied straight out (gpumem.cc says why);
    // anything else is read through MLX.
    if (nbytes > 0 && !emily::read_device_bytes(x, dst, nbytes)) {
      std::memcpy(dst, x.data<uint8_t>(), nbytes);
    }
  });
}

int emily_eval(const emily_array* arrays, int n, char** err) {
  return emily::guarded(err, [&] {
    std::vector<mx::array> xs;
    xs.reserve(n);
    for (int i = 0; i < n; ++i) xs.push_back(arrays[i]->a);
    mx::eval(xs);
  });
}

// emily_async_eval queues the evaluation of the arrays and returns at once
// (mx::async_eval): a later read or eval waits for it.
int emily_async_eval(const emily_array* arrays, int n, char** err) {
  return emily::guarded(err, [&] {
    std::vector<mx::array> xs;
    xs.reserve(n);
    for (int i = 0; i < n; ++i) xs.push_back(arrays[i]->a);
    mx::async_eval(xs);
  });
}

}  // extern "C"
