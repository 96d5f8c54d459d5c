package emily

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emily-go/emily/mlxbind"
)

// TestHostLogsInline: on glibc 2.28 to 2.42 (the logf and log2f of
// fuselog.go; log10f's fdlibm form until 2.43) the Go forms of the fuse
// lane's logs give the host's bits on the start-up check's inputs, so the
// header carries all three.
func TestHostLogsInline(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the fuse lane's vector math is for x86-64 glibc hosts")
	}
	start := time.Now()
	on, err := hostLogsInline()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("glibc %s: inline %v, checked in %v", mlxbind.GlibcVersion(), on, time.Since(start))
	v := strings.Split(mlxbind.GlibcVersion(), ".")
	if len(v) < 2 || v[0] != "2" {
		t.Skipf("not glibc 2.x (%q): nothing to expect", mlxbind.GlibcVersion())
	}
	minor, _ := strconv.Atoi(v[1])
	if minor < 28 || minor > 42 {
		t.Skipf("glibc %s: outside the versions whose logs fuselog.go has", mlxbind.GlibcVersion())
	}
	for _, name := range []string{"log", "log2", "log10"} {
		if !on[name] {
			t.Errorf("glibc %s: %s not inline: its Go form differs from the host's on the check inputs", mlxbind.GlibcVersion(), name)
		}
	}
	h := inlineLogHeader(on)
	for _, want := range []string{"inline Simd<float, 1> log(", "inline Simd<float, 1> log2(", "inline Simd<float, 1> log10(", "0x1.62e42fefa39efp-01"} {
		if !strings.Contains(h, want) {
			t.Errorf("header has no %q:\n%s", want, h)
		}
	}
}

// TestGoLogsSpecialValues pins the special cases of the Go forms (the C++
// is checked on all inputs by scripts/check-fuse-math.sh; these are the
// bits glibc gives).
func TestGoLogsSpecialValues(t *testing.T) {
	for _, c := range []struct {
		x                uint32
		log, log2, log10 uint32
	}{
		{0x00000000, 0xff800000, 0xff800000, 0xff800000},
		{0x80000000, 0xff800000, 0xff800000, 0xff800000},
		{0xbf800000, 0xffc00000, 0xffc00000, 0x7fc00000},
		{0xff800000, 0xffc00000, 0xffc00000, 0x7fc00000},
		{0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000},
		{0x7f800001, 0x7fc00001, 0x7fc00001, 0x7fc00001},
		{0xffc00000, 0xffc00000, 0xffc00000, 0xffc00000},
		{0x3f800000, 0, 0, 0},
		{0x000116c2, 0xc2b834f2, 0xc304e08c, 0xc2200001},
	} {
		x := math.Float32frombits(c.x)
		for _, g := range []struct {
			name string
			got  float32
			want uint32
		}{{"log", goLogf(x), c.log}, {"log2", goLog2f(x), c.log2}, {"log10", goLog10f(x), c.log10}} {
			if math.Float32bits(g.got) != g.want {
				t.Errorf("%s(%08x) = %08x, glibc gives %08x", g.name, c.x, math.Float32bits(g.got), g.want)
			}
		}
	}
}
