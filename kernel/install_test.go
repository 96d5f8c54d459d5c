package kernel

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestInstall(t *testing.T) {
	tests := []struct {
		name    string
		dataDir bool // set JUPYTER_DATA_DIR
		xdg     bool // set XDG_DATA_HOME
		opts    func(tmp string) InstallOptions
		want    func(tmp string) string
	}{
		{
			name:    "JUPYTER_DATA_DIR is the user data dir",
			dataDir: true,
			opts:    func(string) InstallOptions { return InstallOptions{User: true} },
			want:    func(tmp string) string { return filepath.Join(tmp, "data", "kernels", "emily") },
		},
		{
			name:    "user is the default",
			dataDir: true,
			opts:    func(string) InstallOptions { return InstallOptions{} },
			want:    func(tmp string) string { return filepath.Join(tmp, "data", "kernels", "emily") },
		},
		{
			name:    "prefix wins over user and JUPYTER_DATA_DIR",
			dataDir: true,
			opts: func(tmp string) InstallOptions {
				return InstallOptions{User: true, Prefix: filepath.Join(tmp, "venv")}
			},
			want: func(tmp string) string { return filepath.Join(tmp, "venv", "share", "jupyter", "kernels", "emily") },
		},
		{
			name: "home without JUPYTER_DATA_DIR",
			opts: func(string) InstallOptions { return InstallOptions{User: true} },
			want: func(tmp string) string {
				return filepath.Join(tmp, "home", ".local", "share", "jupyter", "kernels", "emily")
			},
		},
		{
			name: "XDG_DATA_HOME",
			xdg:  true,
			opts: func(string) InstallOptions { return InstallOptions{User: true} },
			want: func(tmp string) string { return filepath.Join(tmp, "xdg", "jupyter", "kernels", "emily") },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("HOME", filepath.Join(tmp, "home"))
			t.Setenv("JUPYTER_DATA_DIR", "")
			t.Setenv("XDG_DATA_HOME", "")
			if tt.dataDir {
				t.Setenv("JUPYTER_DATA_DIR", filepath.Join(tmp, "data"))
			}
			if tt.xdg {
				t.Setenv("XDG_DATA_HOME", filepath.Join(tmp, "xdg"))
			}
			opts := tt.opts(tmp)
			opts.Binary = "/opt/emily/bin/emily-repl"
			dir, err := Install(opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.want(tmp); dir != want {
				t.Errorf("dir = %s, want %s", dir, want)
			}
			spec := readSpec(t, dir)
			wantArgv := []string{"/opt/emily/bin/emily-repl", "kernel", "-f", "{connection_file}"}
			if len(spec.Argv) != 4 || spec.Argv[0] != wantArgv[0] || spec.Argv[1] != wantArgv[1] ||
				spec.Argv[2] != wantArgv[2] || spec.Argv[3] != wantArgv[3] {
				t.Errorf("argv = %q, want %q", spec.Argv, wantArgv)
			}
			if spec.DisplayName != "Go (Emily)" || spec.Language != "go" || spec.InterruptMode != "message" {
				t.Errorf("spec = %+v", spec)
			}
		})
	}
}

func TestInstallBinaryMadeAbsolute(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", tmp)
	dir, err := Install(InstallOptions{Binary: "relative/emily-repl"})
	if err != nil {
		t.Fatal(err)
	}
	if bin := readSpec(t, dir).Argv[0]; !filepath.IsAbs(bin) {
		t.Errorf("argv[0] = %q, want an absolute path", bin)
	}
	// Without Binary, the running executable (the test binary) is used.
	dir, err = Install(InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if bin := readSpec(t, dir).Argv[0]; bin != exe {
		t.Errorf("argv[0] = %q, want %q", bin, exe)
	}
}

func readSpec(t *testing.T, dir string) kernelSpec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("kernel.json: %v", err)
	}
	if raw["interrupt_mode"] != "message" {
		t.Errorf("kernel.json interrupt_mode = %v", raw["interrupt_mode"])
	}
	var spec kernelSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// Install writes the logos Jupyter looks for by name in the kernelspec
// (logo-32x32.png, logo-64x64.png, logo-svg.svg): valid images of their
// size, so the launcher and Help › About show the logo, not a placeholder.
func TestInstallWritesLogos(t *testing.T) {
	dir, err := Install(InstallOptions{Binary: "/bin/true", Prefix: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, px := range []int{32, 64} {
		name := filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", px, px))
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != px || cfg.Height != px {
			t.Errorf("%s: %+v %v, want a %d×%d PNG", name, cfg, err, px, px)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "logo-svg.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		ViewBox string `xml:"viewBox,attr"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil || doc.XMLName.Local != "svg" || doc.ViewBox == "" {
		t.Errorf("logo-svg.svg: %v %+v, want an <svg> with a viewBox", err, doc)
	}
}
