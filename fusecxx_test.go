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
			f, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			syms, _ := f.ImportedSymbols()
			f.Close()
			for _, s := range syms {
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
