package emily

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// FuseCXXFlagsEnv names the environment variable that sets the flags
// added to the g++ command MLX runs to build the fuse lane's CPU kernels.
// Unset, the kernels use the host's vector math where it has it (see
// vectorMathFlags: x86-64 with glibc's libmvec); "off" leaves MLX's own
// command alone; anything else replaces the default, e.g.
// "-march=native -ffast-math" (faster still, results change and NaN/Inf
// handling goes). Read once at start-up.
const FuseCXXFlagsEnv = "EMILY_FUSE_CXXFLAGS"

// fuseCXXFlags is the flag set in force ("" for MLX's command), for
// FuseCXXFlags and the tests.
var fuseCXXFlags string

// FuseCXXFlags returns the g++ flags the fuse lane's CPU kernels are built
// with beyond MLX's own command: EMILY_FUSE_CXXFLAGS's, or the vector math
// default, or "" for none.
func FuseCXXFlags() string { return fuseCXXFlags }

func init() {
	flags, set := os.LookupEnv(FuseCXXFlagsEnv)
	flags = strings.TrimSpace(flags)
	if !set || flags == "" {
		vec, err := vectorMathFlags()
		if err != nil || vec == "" {
			return // not an x86-64 glibc host, or no g++: MLX's command
		}
		flags = vec
	} else if flags == "off" {
		return
	}
	if err := setFuseCXXFlags(flags); err != nil {
		fmt.Fprintf(os.Stderr, "emily: %s: %v\n", FuseCXXFlagsEnv, err)
		return
	}
	fuseCXXFlags = flags
}

// setFuseCXXFlags makes MLX's CPU compile use flags. MLX runs a fixed
// command, `g++ -std=c++17 -O3 -Wall -fPIC -shared ...` with g++ looked up on
// PATH, and caches each built kernel under $TMPDIR/mlx/<version>/cpu by a
// name that does not include the flags. So this writes a g++ that adds the
// flags (after MLX's, so they can override -O3) into a folder of its own
// per flag set, and points PATH at it and TMPDIR into it, giving every flag
// set its own kernel cache: kernels built with other flags are never
// reused, and MLX's shared /tmp/mlx is left alone. Both variables are set in
// the C environment only, which MLX reads: Go's os.Getenv, os.TempDir and
// the programs os/exec starts still see the original values.
func setFuseCXXFlags(flags string) error {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		return fmt.Errorf("no g++ on PATH (MLX builds fused CPU kernels with it): %w", err)
	}
	if gxx, err = filepath.Abs(gxx); err != nil {
		return err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	host, _ := os.Hostname() // -march=native kernels must not travel to another machine's CPU
	sum := sha256.Sum256([]byte(gxx + "\x00" + flags + "\x00" + host))
	dir := filepath.Join(base, "emily", "fuse-cxx", hex.EncodeToString(sum[:8]))
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return err
	}
	var script strings.Builder
	fmt.Fprintf(&script, "#!/bin/sh\n# Written by Emily for %s=%s: MLX's g++ command, plus these flags.\nexec %s \"$@\"",
		FuseCXXFlagsEnv, flags, shellQuote(gxx))
	for _, f := range strings.Fields(flags) {
		script.WriteString(" " + shellQuote(f))
	}
	script.WriteString("\n")
	// Write and rename, so a process starting beside this one never runs a
	// half-written script.
	tmp, err := os.CreateTemp(bin, ".g++-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(script.String())
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o700)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(bin, "g++"))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	if err := mlxbind.SetCEnv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		return err
	}
	return mlxbind.SetCEnv("TMPDIR", dir)
}

// shellQuote quotes s for sh: inside single quotes nothing is special but
// the single quote itself.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
