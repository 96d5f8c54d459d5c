package emily

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// The fuse lane's float log, log2 and log10 (issue 25). MLX's kernels call
// the C library's logf, log2f and log10f one element at a time, and a
// fused chain of logs ran at 4× NumPy's time. libmvec's vector logs are
// not the same function (a few ULP off), and neither was an inline
// Cephes-style log (1 ULP off on 0.3% of inputs): opcheck's Gumbel,
// -log(-log(u)), is ill-conditioned where the result is near 0, and turned
// one ULP of the inner log into 30 (BENCHMARKS.md). So the logs here are
// glibc's own algorithms, written so that GCC vectorizes them (selects for
// the special cases, the table lookups gathers), and give the same bits as
// the host's glibc on every float input:
//
//   - logf and log2f (glibc ≥ 2.27, from Arm's optimized-routines, by
//     Szabolcs Nagy): x = 2^k·z with z exact near 1, a 16-entry table of
//     1/c and log(c) for z's subinterval, and a degree-4 polynomial of
//     r = z/c - 1 in double. glibc's x86-64 build has an FMA variant that
//     the ifunc picks on FMA hosts; the fused multiply-adds below are where
//     GCC contracted that build's, and on all 2^32 inputs the plain form
//     (two roundings, as in glibc's generic build, used here without FMA)
//     gives the same floats as the fused one, as do glibc's two variants
//     (scripts/check-fuse-math.sh, BENCHMARKS.md).
//   - log10f (glibc before 2.43: fdlibm's) splits x = 2^y·m with m in
//     [0.5, 2) and returns y·lo + logf(m)/ln(10) + y·hi in float. Its
//     wrapper's answers for x ≤ 0 (SVID compatibility): -Inf for ±0, a
//     positive NaN below 0.
//
// The constants are the host libm's (read from its code and data, the same
// as glibc's source) and go into the header from the Go tables below, which
// the Go forms of the three functions share: at start-up those are checked
// against the host's logf, log2f and log10f on logCheckInputs, and a
// function goes into the header only if every result has the same bits.
// Another glibc (2.43's correctly rounded log10f, an older logf, a musl
// host) then keeps the libm call for that function, as before.
//
// The algorithms and their constants are not ours; their notices:
//
//   - logf, log2f and their tables: Arm's optimized-routines (math/logf.c,
//     math/log2f.c and their data), Copyright (c) 2017-2018, Arm Limited,
//     SPDX-License-Identifier: MIT OR Apache-2.0 WITH LLVM-exception.
//   - log10f: fdlibm's e_log10f.c, "Copyright (C) 1993 by Sun
//     Microsystems, Inc. All rights reserved. Developed at SunPro, a Sun
//     Microsystems, Inc. business. Permission to use, copy, modify, and
//     distribute this software is freely granted, provided that this
//     notice is preserved."

const (
	logOff  = 0x3f330000
	logLn2  = 0x1.62e42fefa39efp-1
	logfA0  = -0x1.00ea348b88334p-2 // logf's polynomial: log1p(r) ≈ r + A0 r^4 + A1 r^3 + A2 r^2
	logfA1  = 0x1.5575b0be00b6ap-2
	logfA2  = -0x1.ffffef20a4123p-2
	log2fA0 = -0x1.712b6f70a7e4dp-2 // log2f's: log1p(r)/ln 2 ≈ A0 r^4 + A1 r^3 + A2 r^2 + A3 r
	log2fA1 = 0x1.ecabf496832ep-2
	log2fA2 = -0x1.715479ffae3dep-1
	log2fA3 = 0x1.715475f35c8b8p+0
	// log10f's float constants: 1/ln(10) and log10(2) split in two.
	log10Inv  = float32(0x1.bcb7b2p-2)
	log10Hi   = float32(0x1.3441p-2)
	log10Lo   = float32(0x1.a84fb6p-21)
	log10NaN  = 0x7fc00000 // log10f's wrapper's NaN for x < 0
	float32QN = 0x00400000 // a float's quiet bit
)

// logInvC[i] is 1/c for the i-th subinterval of z; logLogC and log2LogC
// are log(c) and log2(c) (logf and log2f share the c's).
var logInvC = [16]float64{
	0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0, 0x1.3c995b0b80385p+0,
	0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0, 0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
	0x1.0953f419900a7p+0, 0x1p+0, 0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
	0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
}

var logLogC = [16]float64{
	-0x1.57bf7808caadep-2, -0x1.2bef0a7c06ddbp-2, -0x1.01eae7f513a67p-2, -0x1.b31d8a68224e9p-3,
	-0x1.6574f0ac07758p-3, -0x1.1aa2bc79c81p-3, -0x1.a4e76ce8c0e5ep-4, -0x1.1973c5a611cccp-4,
	-0x1.252f438e10c1ep-5, 0, 0x1.aa5aa5df25984p-5, 0x1.c5e53aa362eb4p-4,
	0x1.526e57720db08p-3, 0x1.bc2860d22477p-3, 0x1.1058bc8a07ee1p-2, 0x1.4043057b6ee09p-2,
}

var log2LogC = [16]float64{
	-0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
	-0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3, -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
	-0x1.a6f9db6475fcep-5, 0, 0x1.338ca9f24f53dp-4, 0x1.476a9543891bap-3,
	0x1.e840b4ac4e4d2p-3, 0x1.40645f0c6651cp-2, 0x1.88e9c2c1b9ff8p-2, 0x1.ce0a44eb17bccp-2,
}

// logReduce is logf's and log2f's x = 2^k·z, z in [OFF, 2·OFF) exact, i
// z's subinterval; subnormals are scaled by 2^23 first.
func logReduce(x float32) (z float64, k int32, i uint32) {
	ix := math.Float32bits(x)
	if ix < 0x00800000 {
		ix = math.Float32bits(x*0x1p23) - 23<<23
	}
	tmp := ix - logOff
	return float64(math.Float32frombits(ix - tmp&0xff800000)), int32(tmp) >> 23, (tmp >> 19) % 16
}

// logSpecial is logf's and log2f's answer for x < 2^-126 but positive
// subnormals, +Inf and NaN; ok false for the other inputs.
func logSpecial(x float32) (y float32, ok bool) {
	ix := math.Float32bits(x)
	switch {
	case ix<<1 == 0:
		return float32(math.Inf(-1)), true
	case ix == 0x7f800000:
		return x, true
	case ix > 0x7f800000: // negative or NaN: glibc's (x - x)/(x - x)
		if x != x {
			return math.Float32frombits(ix | float32QN), true
		}
		return math.Float32frombits(0xffc00000), true // x86's default NaN, as 0/0 gives
	}
	return 0, false
}

// goLogf is the header's logf in Go (see the C++ in inlineLogHeader).
// math.FMA where the C++ has its fma; explicit conversions elsewhere keep
// Go from fusing a multiply and an add.
func goLogf(x float32) float32 {
	if y, ok := logSpecial(x); ok {
		return y
	}
	z, k, i := logReduce(x)
	r := math.FMA(z, logInvC[i], -1)
	y0 := math.FMA(float64(k), logLn2, logLogC[i])
	r2 := float64(r * r)
	y := math.FMA(logfA1, r, logfA2)
	y = math.FMA(logfA0, r2, y)
	y = math.FMA(y, r2, y0+r)
	return float32(y)
}

func goLog2f(x float32) float32 {
	if y, ok := logSpecial(x); ok {
		return y
	}
	z, k, i := logReduce(x)
	r := math.FMA(z, logInvC[i], -1)
	y0 := log2LogC[i] + float64(k)
	r2 := float64(r * r)
	y := math.FMA(log2fA1, r, log2fA2)
	p := math.FMA(log2fA3, r, y0)
	y = math.FMA(log2fA0, r2, y)
	y = math.FMA(y, r2, p)
	return float32(y)
}

func goLog10f(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case x < 0:
		return math.Float32frombits(log10NaN)
	case x != x || math.IsInf(float64(x), 1):
		return x + x
	}
	hx := int32(math.Float32bits(x))
	k := int32(0)
	if hx < 0x00800000 {
		hx, k = int32(math.Float32bits(x*0x1p25)), -25
	}
	k += hx>>23 - 127
	i := int32(uint32(k) >> 31)
	m := math.Float32frombits(uint32(hx&0x007fffff | (0x7f-i)<<23))
	y := float32(k + i)
	z := float32(y*log10Lo) + float32(log10Inv*goLogf(m))
	return z + float32(y*log10Hi)
}

// logCheckInputs are the inputs of the start-up check: a stride through
// all 2^32 bit patterns (every sign, exponent and table entry), the
// floats next to 1 (where log is small and Gumbel ill-conditioned),
// subnormals, and the special values.
func logCheckInputs() []float32 {
	var xs []float32
	for i := uint32(0); i < 1<<14; i++ {
		xs = append(xs, math.Float32frombits(i*0x40004+i>>2))
	}
	one := math.Float32bits(1)
	for k := uint32(0); k < 1024; k++ {
		xs = append(xs, math.Float32frombits(one+k), math.Float32frombits(one-k), math.Float32frombits(k), math.Float32frombits(0x007fffff-k))
	}
	for _, b := range []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7f7fffff, 0x00800000, 0x80000001, 0x3f3504f3, 0x3fb504f3} {
		xs = append(xs, math.Float32frombits(b))
	}
	return xs
}

// hostLogsInline returns which of log, log2 and log10 the fuse lane may
// compute inline: those whose Go form gives the host's results bit for bit
// on logCheckInputs (log10 only with log: it calls the inline logf).
func hostLogsInline() (map[string]bool, error) {
	xs := logCheckInputs()
	ok := map[string]bool{}
	for _, f := range []struct {
		name string
		fn   func(float32) float32
	}{{"log", goLogf}, {"log2", goLog2f}, {"log10", goLog10f}} {
		host, err := mlxbind.HostLogs(f.name, xs)
		if err != nil {
			return nil, err
		}
		ok[f.name] = true
		for i, x := range xs {
			if math.Float32bits(f.fn(x)) != math.Float32bits(host[i]) {
				ok[f.name] = false
				break
			}
		}
	}
	ok["log10"] = ok["log10"] && ok["log"]
	return ok, nil
}

// cDoubles writes a Go table as a C++ initializer, in hex (exact).
func cDoubles(name string, t *[16]float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "inline constexpr double %s[16] = {", name)
	for i, v := range t {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(cHex(v))
	}
	b.WriteString("};\n")
	return b.String()
}

func cHex(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }

func cHexFloat(v float32) string { return strconv.FormatFloat(float64(v), 'x', -1, 32) + "f" }

// inlineLogHeader is the header's part for the logs in on: MLX's Log,
// Log2 and Log10 call simd::log, log2 and log10 of a Simd<float, 1>, and a
// non-template overload is preferred to MLX's templates (as for exp). The
// C++ is goLogf, goLog2f and goLog10f with the special cases as selects
// (GCC if-converts them under -fno-trapping-math, which the fuse lane's
// flags carry), so the loop vectorizes: the table lookups are gathers
// under -march=native with AVX2.
func inlineLogHeader(on map[string]bool) string {
	if !on["log"] && !on["log2"] {
		return ""
	}
	r := strings.NewReplacer(
		"$OFF", fmt.Sprintf("0x%xu", logOff), "$LN2", cHex(logLn2),
		"$LA0", cHex(logfA0), "$LA1", cHex(logfA1), "$LA2", cHex(logfA2),
		"$BA0", cHex(log2fA0), "$BA1", cHex(log2fA1), "$BA2", cHex(log2fA2), "$BA3", cHex(log2fA3),
		"$DINV", cHexFloat(log10Inv), "$DHI", cHexFloat(log10Hi), "$DLO", cHexFloat(log10Lo), "$DNAN", fmt.Sprintf("0x%xu", log10NaN))
	var b strings.Builder
	b.WriteString("namespace mlx::core::simd {\nnamespace emily_vec {\n")
	b.WriteString(cDoubles("log_invc", &logInvC) + cDoubles("log_logc", &logLogC) + cDoubles("log2_logc", &log2LogC))
	b.WriteString(r.Replace(logHeaderCommon)) // logf: log10f calls it, whether log is on or not
	for _, f := range []struct{ name, body string }{{"log2", logHeaderLog2}, {"log10", logHeaderLog10}} {
		if on[f.name] {
			b.WriteString(r.Replace(f.body))
		}
	}
	b.WriteString("} // namespace emily_vec\n")
	for _, name := range []string{"log", "log2", "log10"} {
		if on[name] {
			fmt.Fprintf(&b, "inline Simd<float, 1> %s(Simd<float, 1> in) {\n  return emily_vec::%sf(in.value);\n}\n", name, name)
		}
	}
	b.WriteString("} // namespace mlx::core::simd\n")
	return b.String()
}

const logHeaderCommon = `// glibc's logf, log2f and log10f, giving its bits on every input
// (fuselog.go; scripts/check-fuse-math.sh checks all 2^32).
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
inline double fma_(double a, double b, double c) {
#ifdef __FMA__
  return __builtin_fma(a, b, c); // where glibc's FMA build has one
#else
  return a * b + c; // glibc's generic build: the same float results
#endif
}
struct LogArg {
  double z;
  int k, i;
};
// x = 2^k z, z in [OFF, 2 OFF) exact, i its table entry; subnormals scaled
// by 2^23 first.
inline LogArg log_reduce(float x) {
  uint32_t ix = float_to_bits(x);
  uint32_t ixs = float_to_bits(x * 0x1p23f) - (23u << 23);
  ix = ix < 0x00800000u ? ixs : ix;
  uint32_t tmp = ix - $OFF;
  LogArg a;
  a.i = (tmp >> 19) % 16;
  a.k = (int32_t)tmp >> 23;
  a.z = (double)bits_to_float(ix - (tmp & 0xff800000u));
  return a;
}
// Negative and NaN: glibc's (x - x)/(x - x), x quieted or x86's default
// NaN, as bits (GCC may fold a negation into the arithmetic, which keeps
// the value but not a NaN's sign: -log(-log(x)) got the other NaN); +Inf
// itself; +-0: -Inf.
inline float log_special(float x, float y) {
  uint32_t ix = float_to_bits(x);
  uint32_t nan = x != x ? ix | 0x00400000u : 0xffc00000u;
  y = ix > 0x7f800000u ? bits_to_float(nan) : y;
  y = ix == 0x7f800000u ? x : y;
  return (ix << 1) == 0 ? -__builtin_inff() : y;
}
inline float logf(float x) {
  LogArg a = log_reduce(x);
  double r = fma_(a.z, log_invc[a.i], -1.0);
  double y0 = fma_((double)a.k, $LN2, log_logc[a.i]);
  double r2 = r * r;
  double y = fma_($LA1, r, $LA2);
  y = fma_($LA0, r2, y);
  y = fma_(y, r2, y0 + r);
  return log_special(x, (float)y);
}
`

const logHeaderLog2 = `inline float log2f(float x) {
  LogArg a = log_reduce(x);
  double r = fma_(a.z, log_invc[a.i], -1.0);
  double y0 = log2_logc[a.i] + (double)a.k;
  double r2 = r * r;
  double y = fma_($BA1, r, $BA2);
  double p = fma_($BA3, r, y0);
  y = fma_($BA0, r2, y);
  y = fma_(y, r2, p);
  return log_special(x, (float)y);
}
`

const logHeaderLog10 = `inline float log10f(float x) {
  // x = 2^y m, m in [0.5, 2); subnormals scaled by 2^25 first.
  int32_t hx = (int32_t)float_to_bits(x);
  int32_t hs = (int32_t)float_to_bits(x * 0x1p25f);
  int32_t k = hx < 0x00800000 ? -25 : 0;
  hx = hx < 0x00800000 ? hs : hx;
  k += (hx >> 23) - 127;
  int32_t i = (int32_t)((uint32_t)k >> 31);
  float m = bits_to_float((uint32_t)((hx & 0x007fffff) | ((0x7f - i) << 23)));
  float y = (float)(k + i);
  float z = y * $DLO + $DINV * logf(m);
  float r = z + y * $DHI;
  // NaN: x + x (x quieted, as bits); +Inf itself; below 0 the wrapper's
  // positive NaN; +-0: -Inf.
  r = x != x ? bits_to_float(float_to_bits(x) | 0x00400000u) : r;
  r = x == __builtin_inff() ? x : r;
  r = x < 0 ? bits_to_float($DNAN) : r;
  return x == 0 ? -__builtin_inff() : r;
}
`
