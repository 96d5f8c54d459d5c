package emily

// inlineMathHeader is the second part of the fuse lane's forced header
// (libmvecHeader): MLX's float exp and log, log2, log10 as overloads that
// MLX's fused kernels pick over its own templates (a non-template function
// is preferred to a template of the same match). They are plain code that
// GCC inlines and vectorizes, so a fused kernel calls nothing per element:
//
//   - exp is MLX's own (simd/math.h: the same polynomial, the same range
//     checks), but rounds x·log2(e) to an integer in float: MLX's
//     floor(x + 0.5) adds a double, so each vector went to double and back
//     (9 instructions of ~40); fused mathmix kernels took 35% less time.
//     The integer differs only where x·log2(e) is within rounding of a
//     half, and then the polynomial's argument is ±0.5 either way.
//   - log, log2 and log10 were glibc's scalar calls: libmvec's logf loses
//     relative accuracy near 1 (Gumbel's -log(-log(u)) drifted 40 ULP;
//     fusevec.go). These reduce x to 2^k·(1+f) with 1+f in [√½, √2), where
//     f is exact, and use Cephes logf's polynomial, so near 1 the result
//     keeps f's bits.
//
// Checked on every one of the 2^32 float inputs against a double-precision
// reference (BENCHMARKS.md, "Vector log and exp in the fuse lane"): log
// within 0.84 ULP (glibc's logf: 0.82), log2 within 1.06 (0.75), log10
// within 1.57 (glibc's log10f: 2.06), each at most 1, 1 and 3 ULP from
// glibc's result; exp differs from MLX's on 127 inputs, by 1 ULP. NaN,
// ±Inf, ±0, negatives and subnormals give what libm and MLX give.
// The MLX headers come from the -I that MLX's g++ command always carries.
const inlineMathHeader = `#include "mlx/backend/cpu/simd/simd.h"
namespace mlx::core::simd {
namespace emily_vec {
inline float bits_to_float(int32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
inline int32_t float_to_bits(float f) {
  int32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
// Splits x > 0 (normal or subnormal, finite) into 2^k (1 + f) with 1 + f in
// [sqrt(1/2), sqrt(2)), where f = m - 1 is exact (Sterbenz).
inline void reduce(float x, float& fk, float& f) {
  bool sub = x < 0x1p-126f;
  int32_t ix = float_to_bits(sub ? x * 0x1p23f : x);
  int32_t t = ix - 0x3f3504f3; // the bits of sqrt(1/2)
  fk = (float)((t >> 23) - (sub ? 23 : 0));
  f = bits_to_float(ix - (t & (int32_t)0xff800000)) - 1.0f;
}
// log(1 + f) - f on that interval: Cephes logf's polynomial,
// -f²/2 + f³ P(f), P evaluated in Estrin's scheme with FMA (a short
// dependency chain: a fused kernel runs these one after another).
inline float log1p_tail(float f) {
  float z = f * f, z2 = z * z;
  float p01 = __builtin_fmaf(-2.4999993993E-1f, f, 3.3333331174E-1f);
  float p23 = __builtin_fmaf(-1.6668057665E-1f, f, 2.0000714765E-1f);
  float p45 = __builtin_fmaf(-1.2420140846E-1f, f, 1.4249322787E-1f);
  float p67 = __builtin_fmaf(-1.1514610310E-1f, f, 1.1676998740E-1f);
  float p03 = __builtin_fmaf(p23, z, p01);
  float p47 = __builtin_fmaf(p67, z, p45);
  float p = __builtin_fmaf(__builtin_fmaf(7.0376836292E-2f, z2, p47), z2, p03);
  return __builtin_fmaf(p * f, z, -0.5f * z);
}
inline float special_log(float x, float r) {
  r = x == __builtin_inff() ? x : r;
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x < 0.0f ? __builtin_nanf("") : r;
  return x != x ? x : r;
}
inline float logf(float x) {
  float fk, f;
  reduce(x, fk, f);
  // k ln 2 + f + tail, ln 2 in two parts so that near 1 (k = 0) the bits
  // of f are kept: relative accuracy where log is small.
  float y = __builtin_fmaf(-2.12194440e-4f, fk, log1p_tail(f));
  return special_log(x, __builtin_fmaf(0.693359375f, fk, f + y));
}
inline float log2f(float x) {
  float fk, f;
  reduce(x, fk, f);
  // k + log2(1 + f): k is exact, log2(1 + f) = (f + tail) log2(e) with
  // log2(e) in two parts.
  float t = log1p_tail(f);
  float hi = f * 1.4426950216293f; // 1.4426950216293 = 0x1.715476p+0
  float lo = __builtin_fmaf(f, 1.4426950216293f, -hi);
  float small = __builtin_fmaf(t, 1.4426950408889634f, __builtin_fmaf(f, 1.925963033e-8f, lo));
  return special_log(x, fk + (hi + small));
}
inline float log10f(float x) {
  float fk, f;
  reduce(x, fk, f);
  // k log10(2) + (f + tail) log10(e), each constant in two parts (the
  // high part of log10(2) has 11 bits, so k times it is exact).
  float t = log1p_tail(f);
  float fl = f * 4.3429448190e-1f;
  float fl_err = __builtin_fmaf(f, 4.3429448190e-1f, -fl);
  float lo = __builtin_fmaf(fk, 4.605043981e-6f, __builtin_fmaf(t, 4.3429448190e-1f, __builtin_fmaf(f, -1.0103050e-8f, fl_err)));
  return special_log(x, __builtin_fmaf(fk, 3.01025390625e-1f, fl) + lo);
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
inline Simd<float, 1> log(Simd<float, 1> in) {
  return emily_vec::logf(in.value);
}
inline Simd<float, 1> log2(Simd<float, 1> in) {
  return emily_vec::log2f(in.value);
}
inline Simd<float, 1> log10(Simd<float, 1> in) {
  return emily_vec::log10f(in.value);
}
} // namespace mlx::core::simd
`
