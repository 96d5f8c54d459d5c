// Command gen writes the kernel's logo files into the directory given as
// its argument (go generate runs it for kernel/logo).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/emily-go/emily/kernel/internal/logo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	files := map[string][]byte{"logo-svg.svg": logo.SVG()}
	for _, px := range []int{32, 64} {
		b, err := logo.PNG(px)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		files[fmt.Sprintf("logo-%dx%d.png", px, px)] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
