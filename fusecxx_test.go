package emily_test

import (
	"debug/elf"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// EMILY_FUSE_CXXFLAGS is read at start-up, so each case runs this test
// binary again with the variable set (TestFuseCXXFlagsChild does the work)
// and its own cache folder.
func runFuseCXXChild(t *testing.T, flags, want string) string {
	t.Helper()
	cache := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFuseCXXFlagsChild$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, emily.FuseCXXFlagsEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if flags != unsetFlags {
		cmd.Env = append(cmd.Env, emily.FuseCXXFlagsEnv+"="+flags)
	}
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cache, "EMILY_FUSE_CXX_CHILD="+want)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFuseCXXFlagsChild") {
		t.Fatalf("child with %s=%q: %v\n%s", emily.FuseCXXFlagsEnv, flags, err, out)
	}
	return cache
}

func TestFuseCXXFlagsReachMLXsCompiler(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++: MLX cannot build fused CPU kernels here")
	}
	// An option g++ rejects: the fused call must fail with g++'s complaint,
	// so the flags really reach the command MLX runs.
	runFuseCXXChild(t, "-fno-such-option-emily", "error")
	// -march=native: the kernel is built in the flag set's own cache and
	// agrees with the native lane.
	cache := runFuseCXXChild(t, "-march=native", "ok")
	libs, _ := filepath.Glob(filepath.Join(cache, "emily", "fuse-cxx", "*", "mlx", "*", "cpu", "lib*.so"))
	if len(libs) == 0 {
		t.Fatalf("no fused kernel in the flag set's cache under %s", cache)
	}
	script, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(libs[0])))), "bin", "g++"))
	if err != nil || !strings.Contains(string(script), `"$@" '-march=native'`) {
		t.Fatalf("wrapper script (err %v):\n%s", err, script)
	}
}

// unsetFlags asks runFuseCXXChild for a child without EMILY_FUSE_CXXFLAGS.
const unsetFlags = "\x00unset"

// TestFuseVectorMathByDefault: with EMILY_FUSE_CXXFLAGS unset, the fused
// CPU kernels of an x86-64 glibc host call libmvec's vector functions
// (issue 25: a fused tanh chain called scalar tanhf per element) and stay
// within the fuse lane's 8-ULP bound (the child checks it); "off" keeps
// MLX's own command, whose kernels call no vector function.
func TestFuseVectorMathByDefault(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++: MLX cannot build fused CPU kernels here")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("vector math by default is for x86-64 glibc hosts")
	}
	vectorCalls := func(cache string) (libs, calls int) {
		paths, _ := filepath.Glob(filepath.Join(cache, "emily", "fuse-cxx", "*", "mlx", "*", "cpu", "lib*.so"))
		for _, p := range paths {
			for _, s := range importedSymbols(t, p) {
				if strings.HasPrefix(s.Name, "_ZGV") {
					calls++
				}
			}
		}
		return len(paths), calls
	}
	cache := runFuseCXXChild(t, unsetFlags, "ok")
	libs, calls := vectorCalls(cache)
	if libs == 0 {
		t.Skip("no libmvec on this host: MLX's own command (no kernel in a flag set's cache)")
	}
	if calls == 0 {
		t.Fatalf("%d fused kernels built by default, none calls a libmvec vector function", libs)
	}
	if _, err := os.Stat(filepath.Join(cache, "mlx")); err == nil {
		t.Fatal("a kernel went to MLX's shared cache")
	}
	off := runFuseCXXChild(t, "off", "ok")
	if libs, _ := vectorCalls(off); libs != 0 {
		t.Fatalf("EMILY_FUSE_CXXFLAGS=off: %d kernels in a flag set's cache, want MLX's own command", libs)
	}
}

func TestFuseCXXFlagsChild(t *testing.T) {
	want := os.Getenv("EMILY_FUSE_CXX_CHILD")
	if want == "" {
		t.Skip("run by TestFuseCXXFlagsReachMLXsCompiler")
	}
	// Go's view of the environment is untouched: only MLX sees the wrapper.
	if strings.Contains(os.Getenv("PATH"), "fuse-cxx") || strings.Contains(os.TempDir(), "fuse-cxx") {
		t.Fatalf("Go sees PATH=%q, TempDir %q", os.Getenv("PATH"), os.TempDir())
	}
	f := func(x *emily.Tensor) *emily.Tensor {
		return emily.Tanh(emily.Exp(emily.Mul(x, emily.Scalar(0.5))))
	}
	if want == "logs" {
		fusedLogsAgree(t)
		return
	}
	x := wave(4099) // not a multiple of a vector width
	fused, err := emily.Compile(f, emily.WithFuse(true), emily.WithFallback("raise"), emily.WithDevice("cpu"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := fused.Call(x)
	if want == "error" {
		if err == nil || !strings.Contains(err.Error(), "no-such-option-emily") {
			t.Fatalf("fused call with a bad flag: err = %v, want g++'s complaint about it", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	got := rs[0].ToFloat32s()
	ref := emily.Jit(f, emily.WithNative(true), emily.WithDevice("cpu")).(func(*emily.Tensor) *emily.Tensor)(x).ToFloat32s()
	for i := range ref {
		if ulps := ulpDistance(ref[i], got[i]); ulps > 8 {
			t.Fatalf("value %d: fused %v is %d ULP from native %v", i, got[i], ulps, ref[i])
		}
	}
}

func wave(n int) *emily.Tensor {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(4 * math.Sin(float64(i)*0.37))
	}
	return emily.FromSlice(xs, n).Eval()
}

// importedSymbols lists the symbols a fused kernel's library imports.
func importedSymbols(t *testing.T, path string) []elf.ImportedSymbol {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.ImportedSymbols()
	return syms
}

// defaultFusedKernels runs the fused-math child with the default flags and
// returns objdump, the child's cache and its kernels matching pattern;
// it skips where the host cannot build or read them.
func defaultFusedKernels(t *testing.T, pattern string) (objdump, cache string, paths []string) {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++: MLX cannot build fused CPU kernels here")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("vector math by default is for x86-64 glibc hosts")
	}
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("no objdump (binutils) to read the fused kernel's code")
	}
	cache = runFuseCXXChild(t, unsetFlags, "logs")
	paths, _ = filepath.Glob(filepath.Join(cache, "emily", "fuse-cxx", "*", "mlx", "*", "cpu", pattern))
	if len(paths) == 0 {
		t.Skip("no libmvec on this host: MLX's own command (no kernel in a flag set's cache)")
	}
	return objdump, cache, paths
}

// TestFuseExpInlineByDefault: with the default flags, a fused float exp
// kernel has no conversion to double in it (MLX's exp rounds with
// floor(x + 0.5), a double, so every vector went to double and back:
// fusevecmath.go), and fused Exp, Log, Log2 and Log10 agree with the
// native lane within the fuse lane's 8-ULP bound over exp's range, next to
// 1, at powers of two, on subnormals and at the special values (the child,
// fusedLogsAgree).
func TestFuseExpInlineByDefault(t *testing.T) {
	objdump, _, paths := defaultFusedKernels(t, "lib*f4OExp*_contiguous.so")
	for _, p := range paths {
		out, err := exec.Command(objdump, "-d", p).Output()
		if err != nil {
			t.Fatalf("objdump -d %s: %v", p, err)
		}
		if strings.Contains(string(out), "cvtps2pd") {
			t.Errorf("fused exp kernel %s converts floats to double (MLX's floor(x + 0.5)), want exp in float", filepath.Base(p))
		}
	}
}

// TestFuseLogInlineByDefault: with the default flags, a fused float log,
// log2 or log10 is vector code with no call to libm's logf, log2f or
// log10f (issue 25: the log chain called logf per element), and the fused
// results are the native lane's bit for bit (the child checks them:
// fuselog.go's logs are glibc's, and Gumbel's -log(-log(u)) turned one ULP
// of a log that was not into 30).
func TestFuseLogInlineByDefault(t *testing.T) {
	objdump, cache, paths := defaultFusedKernels(t, "lib*f4[IO]Log*_contiguous.so")
	headers, _ := filepath.Glob(filepath.Join(cache, "emily", "fuse-cxx", "libmvec-*.h"))
	if len(headers) != 1 {
		t.Fatalf("want one fuse-lane header in %s, have %v", cache, headers)
	}
	header, err := os.ReadFile(headers[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(header), "inline Simd<float, 1> log(") {
		t.Skip("this host's glibc logf is not fuselog.go's: the fused log calls libm's (TestHostLogsInline says which)")
	}
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	avx2 := strings.Contains(string(cpuinfo), " avx2")
	for _, p := range paths {
		for _, s := range importedSymbols(t, p) {
			if s.Name == "logf" || s.Name == "log2f" || s.Name == "log10f" || strings.HasPrefix(s.Name, "_ZGV") && strings.Contains(s.Name, "_log") && !strings.Contains(s.Name, "log1p") {
				t.Errorf("fused log kernel %s calls %s, want the header's inline log", filepath.Base(p), s.Name)
			}
		}
		out, err := exec.Command(objdump, "-d", p).Output()
		if err != nil {
			t.Fatalf("objdump -d %s: %v", p, err)
		}
		if avx2 && !strings.Contains(string(out), "vgatherdpd") {
			t.Errorf("fused log kernel %s has no vgatherdpd: its table lookups are not vectorized (AVX2 host)", filepath.Base(p))
		}
	}
}

// fusedLogsAgree compares fused Log, Log2, Log10 and Exp with the native
// lane on the inputs where a log is hard: next to 1 (log is small there:
// relative accuracy), powers of two, subnormals, 0, -0, negatives, Inf,
// NaN, a log-uniform spread and Gumbel's (0, 1). The logs must give the
// native lane's bits (NaNs too: glibc's, inline or called), exp stay within
// 8 ULP; Gumbel's -log(-log(u)) fused must be the native lane's too.
func fusedLogsAgree(t *testing.T) {
	var xs []float32
	for k := -3000; k <= 3000; k++ {
		xs = append(xs, math.Float32frombits(math.Float32bits(1)+uint32(k))) // k ULP from 1 (below 1 the steps halve: still near)
	}
	for e := -149; e <= 127; e++ {
		p := float32(math.Ldexp(1, e))
		xs = append(xs, p, math.Nextafter32(p, 0), math.Nextafter32(p, float32(math.Inf(1))))
	}
	for i := 0; i < 20000; i++ {
		xs = append(xs, float32(math.Exp(float64(i)*0.0087-87))) // 1e-38 .. 4e37
	}
	for _, v := range []float64{0, math.Copysign(0, -1), -1, -1e-30, math.Inf(1), math.Inf(-1), math.NaN(), 1.4e-45, 1e-40, 3.4e38, 0.7071067, 0.7071068, 1.4142135, 1.4142137} {
		xs = append(xs, float32(v))
	}
	xs = append(xs, math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000), -float32(math.NaN()))
	for i := 0; i < 1<<16; i++ {
		xs = append(xs, (float32(i)+0.5)/(1<<16)) // Gumbel's uniform u
	}
	for i := 0; i < 8192; i++ {
		xs = append(xs, float32(math.Exp(-1-float64(i-4096)*0.0001))) // u where -log(u) is next to 1
	}
	// exp's arguments: -100 .. 100 in steps that hit the halves where the
	// rounding to an integer of x·log2(e) changed, and the special values.
	var es []float32
	for i := -200000; i <= 200000; i++ {
		es = append(es, float32(i)*0.0005)
	}
	es = append(es, 88, 88.1, -88, -88.1, 89, -104, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)))
	for name, f := range map[string]func(*emily.Tensor) *emily.Tensor{
		"Log": emily.Log, "Log2": emily.Log2, "Log10": emily.Log10, "Exp": emily.Exp,
		"Gumbel": func(x *emily.Tensor) *emily.Tensor { return emily.Neg(emily.Log(emily.Neg(emily.Log(x)))) },
	} {
		xs := xs
		if name == "Exp" {
			xs = es
		}
		x := emily.FromSlice(xs, len(xs)).Eval()
		op := f
		// x·1 (exact) before the op: MLX fuses a chain, not one op alone.
		f := func(x *emily.Tensor) *emily.Tensor { return op(emily.Mul(x, emily.Scalar(1))) }
		fused, err := emily.Compile(f, emily.WithFuse(true), emily.WithFallback("raise"), emily.WithDevice("cpu"))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := fused.Call(x)
		if err != nil {
			t.Fatalf("%s fused: %v", name, err)
		}
		got := rs[0].ToFloat32s()
		ref := emily.Jit(f, emily.WithNative(true), emily.WithDevice("cpu")).(func(*emily.Tensor) *emily.Tensor)(x).ToFloat32s()
		bad := 0
		for i := range ref {
			g, r := got[i], ref[i]
			if name != "Exp" {
				if math.Float32bits(g) != math.Float32bits(r) {
					if bad++; bad <= 5 {
						t.Errorf("%s(%g): fused %g (%08x) is not native's %g (%08x)", name, xs[i], g, math.Float32bits(g), r, math.Float32bits(r))
					}
				}
				continue
			}
			same := g == r || (g != g && r != r)
			if !same && (math.IsInf(float64(r), 0) || r != r || math.Signbit(float64(g)) != math.Signbit(float64(r)) || ulpDistance(r, g) > 8) {
				if bad++; bad <= 5 {
					t.Errorf("%s(%g): fused %g is %d ULP from native %g (bound 8)", name, xs[i], g, ulpDistance(r, g), r)
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d values of %d past the bound", name, bad, len(ref))
		}
	}
}
