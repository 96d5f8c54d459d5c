package emily

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// The fuse lane's CPU kernels are loops that MLX generates and builds with
// g++: each element of a fused tanh, exp, log, erf or sigmoid calls libm,
// one scalar call at a time, so a fused chain of transcendental ops ran at
// 28× NumPy's time (issue 25). glibc ships vector versions of those
// functions (libmvec, documented at most 4 ULP from the correctly rounded
// result) that GCC calls from a vectorized loop when the function is
// declared with the simd attribute. glibc's math.h only declares them so
// under -ffast-math, which also changes results and NaN/Inf handling. So
// the default build force-includes a header that declares the functions
// this host's libmvec has as simd, with no other change of meaning:
//
//   - -fno-math-errno: GCC vectorizes a call only if it has no side effect;
//     errno is one (nothing in MLX reads it);
//   - -march=native: the host's vector units (the kernels are built on the
//     machine that runs them, in a cache of their own per host);
//   - -mprefer-vector-width=512: on an AVX-512 host GCC otherwise keeps to
//     256-bit vectors (its tuning for Intel's server chips), calling
//     libmvec's 8-lane AVX2 functions; with the 16-lane AVX-512 ones 33
//     fused tanh steps on 1M floats take 0.46× the time (BENCHMARKS.md). Results
//     do not change but for libmvec's own ≤ 4 ULP, which opcheck holds to
//     the fuse lane's bound; on a host without 512-bit units it is
//     ignored;
//   - -ffp-contract=off: no a*b+c turned into FMA, which moved LayerNorm
//     past the fuse lane's 8-ULP bound (BENCHMARKS.md);
//   - -fno-trapping-math: GCC if-converts MLX's selects (exp's NaN and
//     range checks) only if a float op may be run where the source would
//     not run it, i.e. when no one traps on its exceptions (no one does:
//     values are unchanged, the rounding mode is untouched);
//   - -finline-limit=1000: MLX's exp is a polynomial in a template that
//     GCC's inliner calls cold and leaves out of line, which keeps the
//     whole loop scalar.
//
// opcheck's fuse lane is held to that bound in make test with this default.

// libmvecDirs are where glibc's libmvec.so.1 lives on x86-64 systems.
var libmvecDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/lib"}

// vectorMathFlags returns the default flags, or "" where the host has no
// libmvec, no g++ or is not x86-64 Linux.
func vectorMathFlags() (string, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", nil
	}
	if _, err := exec.LookPath("g++"); err != nil {
		return "", nil
	}
	var lib string
	for _, d := range libmvecDirs {
		if p := filepath.Join(d, "libmvec.so.1"); fileExists(p) {
			lib = p
			break
		}
	}
	if lib == "" {
		return "", nil
	}
	header, err := libmvecHeader(lib)
	if err != nil || header == "" {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(header))
	path := filepath.Join(base, "emily", "fuse-cxx", "libmvec-"+hex.EncodeToString(sum[:8])+".h")
	if !fileExists(path) {
		if err := writeFileAtomic(path, header); err != nil {
			return "", err
		}
	}
	return "-march=native -mprefer-vector-width=512 -ffp-contract=off -fno-math-errno -fno-trapping-math -finline-limit=1000 -include " + path + " " + lib, nil
}

// libmvecHeader declares as simd the float functions of math.h that lib
// has in all four x86-64 vector ISAs (SSE4, AVX, AVX2, AVX-512: the b, c, d
// and e of the vector ABI's names), but those left out below. Only
// functions of one or two plain arguments: sincos writes through pointers.
func libmvecHeader(lib string) (string, error) {
	f, err := elf.Open(lib)
	if err != nil {
		return "", err
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", err
	}
	have := map[string]bool{}
	for _, s := range syms {
		have[s.Name] = true
	}
	// Vector ABI names: _ZGV<isa>N<lanes><v per argument>_<name>.
	lanes := map[string][2]int{"b": {4, 2}, "c": {8, 4}, "d": {8, 4}, "e": {16, 8}} // float, double
	var decls []string
	// Left out, because opcheck's full sweep (tests/test_ops_numpy.py) saw
	// them past the fuse lane's 8-ULP bound: float64 altogether (GeluTanh
	// f64: 0.5x(1+tanh) cancels, and libmvec's tanh is a few ULP off), and
	// log, log2 and log10 (their vector versions lose relative accuracy
	// near 1, where log is small: Gumbel's -log(-log(u)) drifted 40 ULP).
	// Without a simd declaration the call stays libm's, as in the native
	// lane, unless fuselog.go's glibc-identical inline logs replace it.
	for _, fn := range []string{"acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "erf", "erfc",
		"exp", "exp10", "exp2", "expm1", "log1p", "sin", "sinh", "tan", "tanh", "atan2", "hypot", "pow"} {
		args := 1
		if fn == "atan2" || fn == "hypot" || fn == "pow" {
			args = 2
		}
		for k, c := range []struct{ suffix, typ string }{{"f", "float"}} {
			all := true
			for isa, n := range lanes {
				if !have[fmt.Sprintf("_ZGV%sN%d%s_%s%s", isa, n[k], strings.Repeat("v", args), fn, c.suffix)] {
					all = false
				}
			}
			if all {
				params := strings.TrimSuffix(strings.Repeat(c.typ+", ", args), ", ")
				decls = append(decls, fmt.Sprintf("__attribute__((__simd__(\"notinbranch\"))) %s %s%s(%s) noexcept(true);", c.typ, fn, c.suffix, params))
			}
		}
	}
	if len(decls) == 0 {
		return "", nil
	}
	sort.Strings(decls)
	logs, err := hostLogsInline()
	if err != nil {
		return "", err
	}
	return "// Written by Emily (fusevec.go): glibc's libmvec functions of this host,\n" +
		"// declared simd so that GCC calls them from the fuse lane's vectorized loops,\n" +
		"// then MLX's exp without its round trip through double (fusevecmath.go)\n" +
		"// and the host's logs that fuselog.go has in a form GCC vectorizes.\n" +
		"#include <math.h>\nextern \"C\" {\n" + strings.Join(decls, "\n") + "\n}\n" + inlineMathHeader + inlineLogHeader(logs), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFileAtomic writes data to path by a rename, so a process starting
// beside this one never reads half of it.
func writeFileAtomic(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
