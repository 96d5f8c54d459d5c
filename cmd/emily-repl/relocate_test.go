package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryFindsMLXRelativeToItself checks the binary is relocatable: a
// checkout moved elsewhere (here: the binary in DIR/bin and the MLX wheel
// at DIR/.deps) loads libmlx.so from DIR/.deps through the $ORIGIN rpath,
// not from the directory it was built in.
func TestBinaryFindsMLXRelativeToItself(t *testing.T) {
	deps, err := filepath.Abs("../../.deps")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "emily-repl")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(deps, filepath.Join(dir, ".deps")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "LD_DEBUG=libs")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("moved binary: %v\n%s", err, out)
	}
	want := dir + "/bin/../.deps/mlx/mlx/lib/libmlx.so"
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "calling init:") && strings.Contains(line, "libmlx.so") {
			if !strings.Contains(line, want) {
				t.Errorf("libmlx.so loaded through the build directory, not $ORIGIN:\n%s\nwant %s", line, want)
			}
			return
		}
	}
	t.Fatalf("no libmlx.so init in the loader trace:\n%s", out)
}
