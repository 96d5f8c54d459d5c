package emily

// inlineMathHeader is the second part of the fuse lane's forced header
// (libmvecHeader): MLX's float exp as an overload that MLX's fused kernels
// pick over its own template (a non-template function is preferred to a
// template of the same match). It is MLX's exp (simd/math.h: the same
// polynomial, the same range checks), but rounds x·log2(e) to an integer
// in float: MLX's floor(x + 0.5) adds a double, so each vector went to
// double and back (9 instructions of ~40), and the fused mathmix kernels
// took 35% less time without it (BENCHMARKS.md). The integer differs only
// where x·log2(e) is within rounding of a half, and the polynomial's
// argument is then ±0.5 either way: on all 2^32 float inputs the result
// differs from MLX's on 127, by 1 ULP (scripts/check-fuse-math.sh).
//
// log, log2 and log10 follow (fuselog.go's inlineLogHeader): glibc's own
// algorithms, bit-identical to the host's logf, log2f and log10f. An inline
// Cephes-style logf (within 0.84 ULP of exact, glibc's 0.82, but 1 ULP from
// glibc's on 0.3% of inputs) failed opcheck's Gumbel, -log(-log(u)), which
// turns one ULP of the inner log into 30 at the output where the result is
// near 0: only a log bit-identical to glibc's passes there.
//
// The MLX headers come from the -I that MLX's g++ command always carries.
const inlineMathHeader = `#include "mlx/backend/cpu/simd/simd.h"
namespace mlx::core::simd {
namespace emily_vec {
inline float bits_to_float(int32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
} // namespace emily_vec
inline Simd<float, 1> exp(Simd<float, 1> in) {
  // MLX's exp (simd/math.h), but rounding x log2(e) to an integer in float
  // (floor(x + 0.5) there adds a double and converts each lane there and
  // back): the same polynomial and range checks.
  float x_init = in.value;
  float x = x_init * 1.442695f;
  float ipart = __builtin_rintf(x);
  float fpart = x - ipart;
  x = 1.535336188319500e-4f;
  x = __builtin_fmaf(x, fpart, 1.339887440266574e-3f);
  x = __builtin_fmaf(x, fpart, 9.618437357674640e-3f);
  x = __builtin_fmaf(x, fpart, 5.550332471162809e-2f);
  x = __builtin_fmaf(x, fpart, 2.402264791363012e-1f);
  x = __builtin_fmaf(x, fpart, 6.931472028550421e-1f);
  x = __builtin_fmaf(x, fpart, 1.000000000000000f);
  float r = emily_vec::bits_to_float(((int32_t)ipart + 127) << 23) * x;
  r = x_init != x_init ? x_init : r;
  r = x_init > 88.0f ? __builtin_inff() : r;
  return x_init < -88.0f ? 0.0f : r;
}
} // namespace mlx::core::simd
`
