package kernel

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

//go:generate go run ./internal/logo/gen logo

// logos are the kernelspec's images (kernel/internal/logo draws them):
// JupyterLab's launcher and Help › About show logo-svg.svg, older front
// ends the PNGs. Without them the launcher shows a placeholder letter and
// About a broken image.
//
//go:embed logo/logo-32x32.png logo/logo-64x64.png logo/logo-svg.svg
var logos embed.FS

// KernelName is the kernelspec directory name, which is how Jupyter
// refers to this kernel ("jupyter console --kernel emily").
const KernelName = "emily"

// InstallOptions says what Install writes and where.
type InstallOptions struct {
	// Binary is the kernel executable; empty means the running one. It is
	// made absolute because Jupyter starts kernels from any directory.
	Binary string
	// User installs into the user's Jupyter data directory. It is the
	// default when Prefix is empty.
	User bool
	// Prefix installs into Prefix/share/jupyter/kernels, as for a virtual
	// environment or conda prefix. A prefix wins over User, as in
	// jupyter_core, where an explicit prefix is the more specific request.
	Prefix string
}

// kernelSpec is the kernel.json Jupyter reads to start the kernel.
type kernelSpec struct {
	Argv          []string `json:"argv"`
	DisplayName   string   `json:"display_name"`
	Language      string   `json:"language"`
	InterruptMode string   `json:"interrupt_mode"`
}

// Install writes the kernelspec directory "emily" with its kernel.json and
// logos, and returns the directory. The spec starts "<binary> kernel -f
// {connection_file}" and asks for interrupts as interrupt_request messages,
// since the kernel cancels cells by context rather than by signal.
func Install(opts InstallOptions) (dir string, err error) {
	bin := opts.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return "", fmt.Errorf("kernel: install: locate executable: %w", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return "", fmt.Errorf("kernel: install: absolute path of %s: %w", opts.Binary, err)
	}

	var kernels string
	if opts.Prefix != "" {
		prefix, err := filepath.Abs(opts.Prefix)
		if err != nil {
			return "", fmt.Errorf("kernel: install: absolute path of prefix %s: %w", opts.Prefix, err)
		}
		kernels = filepath.Join(prefix, "share", "jupyter", "kernels")
	} else {
		data, err := userDataDir()
		if err != nil {
			return "", err
		}
		kernels = filepath.Join(data, "kernels")
	}
	dir = filepath.Join(kernels, KernelName)

	spec, err := json.MarshalIndent(kernelSpec{
		Argv:          []string{bin, "kernel", "-f", "{connection_file}"},
		DisplayName:   "Go (Emily)",
		Language:      "go",
		InterruptMode: "message",
	}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("kernel: install: encode kernel.json: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kernel: install: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, "kernel.json")
	if err := os.WriteFile(path, append(spec, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("kernel: install: write %s: %w", path, err)
	}
	entries, err := logos.ReadDir("logo")
	if err != nil {
		return "", fmt.Errorf("kernel: install: read embedded logos: %w", err)
	}
	for _, e := range entries {
		b, err := logos.ReadFile("logo/" + e.Name())
		if err != nil {
			return "", fmt.Errorf("kernel: install: read embedded %s: %w", e.Name(), err)
		}
		path := filepath.Join(dir, e.Name())
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return "", fmt.Errorf("kernel: install: write %s: %w", path, err)
		}
	}
	return dir, nil
}

// userDataDir returns the user's Jupyter data directory by jupyter_core's
// rules: $JUPYTER_DATA_DIR, else the platform's per-user location.
func userDataDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if runtime.GOOS == "windows" {
		if appdata := os.Getenv("APPDATA"); appdata != "" {
			return filepath.Join(appdata, "jupyter"), nil
		}
	} else if xdg := os.Getenv("XDG_DATA_HOME"); xdg != "" && runtime.GOOS != "darwin" {
		return filepath.Join(xdg, "jupyter"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kernel: install: find home directory: %w", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		return filepath.Join(home, ".jupyter", "data"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}
