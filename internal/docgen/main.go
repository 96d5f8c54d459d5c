// Command docgen writes the Go documentation that the session's inspect
// (Jupyter's Shift-Tab, inspect_request) shows: every exported symbol of
// the packages interpreted code can import — the standard library yaegi
// ships and emily's own — with its declaration and doc comment, read
// with go/doc from the sources. `make generate` runs it. The standard
// library keeps only the first paragraph of each comment (pkg.go.dev has
// the rest), which keeps the file to a few MB before compression.
//
//	go run ./internal/docgen [-o interp/godoc.txt.gz]
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/emily-go/emily/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/syscall"
	"github.com/traefik/yaegi/stdlib/unsafe"
)

func main() {
	out := flag.String("o", "interp/godoc.txt.gz", "output file")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// entry is one documented symbol: Key is "importpath.Name" or
// "importpath.Type.Method", or the import path for the package itself.
type entry struct{ key, decl, doc string }

func run(out string) error {
	paths := map[string]bool{"builtin": true}
	for _, table := range []map[string]map[string]reflect.Value{stdlib.Symbols, unsafe.Symbols, syscall.Symbols} {
		for k := range table {
			// yaegi's own packages ("github.com/traefik/yaegi") are not
			// the user's business.
			if i := strings.LastIndex(k, "/"); i > 0 && !strings.Contains(k[:i], ".") {
				paths[k[:i]] = true
			}
		}
	}
	own := map[string]bool{}
	for k := range symbols.Symbols {
		p := k[:strings.LastIndex(k, "/")]
		paths[p], own[p] = true, true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)

	var es []entry
	for _, p := range sorted {
		dir, err := packageDir(p)
		if err != nil {
			return err
		}
		pe, err := packageEntries(p, dir, own[p])
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		es = append(es, pe...)
	}
	// One record per symbol: key, declaration and doc, separated by
	// \x1f, records by \x1e (neither occurs in Go source).
	var raw bytes.Buffer
	for _, e := range es {
		raw.WriteString(e.key + "\x1f" + e.decl + "\x1f" + e.doc + "\x1e")
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	fmt.Printf("docgen: %d symbols of %d packages, %d bytes (%d gzipped) in %s\n", len(es), len(sorted), raw.Len(), gz.Len(), out)
	return os.WriteFile(out, gz.Bytes(), 0o644)
}

// packageDir finds a package's source: the module's own packages in the
// working tree (docgen runs at the repository root), the rest in GOROOT.
func packageDir(path string) (string, error) {
	const mod = "github.com/emily-go/emily"
	if path == mod {
		return ".", nil
	}
	if rest, ok := strings.CutPrefix(path, mod+"/"); ok {
		return rest, nil
	}
	pkg, err := build.Default.Import(path, "", build.FindOnly)
	if err != nil {
		return "", err
	}
	return pkg.Dir, nil
}

// packageEntries documents one package. full keeps whole doc comments
// (emily's own packages); otherwise only their first paragraph.
func packageEntries(path, dir string, full bool) ([]entry, error) {
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "linux", "amd64"
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	mode := doc.Mode(0)
	if path == "builtin" {
		mode = doc.AllDecls // its names are lower case
	}
	pkg, err := doc.NewFromFiles(fset, files, path, mode)
	if err != nil {
		return nil, err
	}
	text := func(s string) string {
		s = strings.TrimSpace(s)
		if !full {
			if i := strings.Index(s, "\n\n"); i >= 0 {
				s = s[:i]
			}
		}
		return s
	}
	decl := func(n ast.Node) string {
		switch d := n.(type) {
		case *ast.FuncDecl:
			d2 := *d
			d2.Body, d2.Doc = nil, nil
			n = &d2
		case *ast.GenDecl:
			d2 := *d
			d2.Doc = nil
			n = &d2
		}
		var b bytes.Buffer
		if err := format.Node(&b, fset, n); err != nil {
			return ""
		}
		s := b.String()
		// Long declarations (big structs, const blocks) are cut: the
		// signature matters, pkg.go.dev has the rest.
		if lines := strings.Split(s, "\n"); len(lines) > 24 {
			s = strings.Join(lines[:24], "\n") + "\n\t…"
		}
		return s
	}
	var es []entry
	es = append(es, entry{path, "package " + pkg.Name + ` // import "` + path + `"`, text(pkg.Doc)})
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			// Each name gets its own spec ("const SEEK_SET int = 0"), not
			// the whole group: syscall's groups run to hundreds of lines.
			for _, sp := range v.Decl.Specs {
				vsp := sp.(*ast.ValueSpec)
				one := &ast.GenDecl{Tok: v.Decl.Tok, Specs: []ast.Spec{&ast.ValueSpec{Names: vsp.Names, Type: vsp.Type, Values: vsp.Values}}}
				d := decl(one)
				for _, n := range vsp.Names {
					if !ast.IsExported(n.Name) && path != "builtin" {
						continue
					}
					es = append(es, entry{path + "." + n.Name, d, text(firstNonEmpty(vsp.Doc.Text(), v.Doc))})
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			if ast.IsExported(f.Name) || path == "builtin" {
				es = append(es, entry{prefix + f.Name, decl(f.Decl), text(f.Doc)})
			}
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs(path+".", pkg.Funcs)
	for _, t := range pkg.Types {
		if !ast.IsExported(t.Name) && path != "builtin" {
			continue
		}
		es = append(es, entry{path + "." + t.Name, decl(t.Decl), text(t.Doc)})
		values(t.Consts)
		values(t.Vars)
		funcs(path+".", t.Funcs)
		funcs(path+"."+t.Name+".", t.Methods)
	}
	return es, nil
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
