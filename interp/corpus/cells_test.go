package corpus

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"time"

	emilyinterp "github.com/emily-go/emily/interp"
)

// The "as cells" mode: a program as a person types it into a notebook,
// its declarations in one cell and then one cell per top-level statement
// of main's body. Each cell keeps the program's line and column numbers
// (blank lines and spaces before it), so that errors point where the
// file's would. What a cell shows as its value is not output (go run
// prints nothing for an expression statement), so only what the program
// prints is compared.

// programCells cuts a program into those cells; without a main, the
// whole program is one cell.
func programCells(src string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "prog.go", src, parser.ParseComments)
	if err != nil {
		return []string{src}, nil // the session reports the syntax error
	}
	var main *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" && fd.Body != nil {
			main = fd
		}
	}
	if main == nil {
		return []string{src}, nil
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	lo := off(main.Pos())
	if main.Doc != nil {
		lo = off(main.Doc.Pos())
	}
	cells := []string{blankRange(src, lo, off(main.End()))}
	for _, st := range main.Body.List {
		if r, ok := st.(*ast.ReturnStmt); ok && len(r.Results) == 0 {
			break // main returns: the cells after it never run
		}
		pos := fset.Position(st.Pos())
		pad := strings.Repeat("\n", pos.Line-1) + strings.Repeat(" ", pos.Column-1)
		cells = append(cells, pad+src[off(st.Pos()):off(st.End())]+"\n")
	}
	return cells, nil
}

// blankRange returns src with bytes [lo, hi) blanked, newlines kept.
func blankRange(src string, lo, hi int) string {
	b := []byte(src)
	for i := lo; i < hi; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// runAsCells runs the program's cells in one fresh session, stopping at
// the first failing cell; it returns what the program printed (stdout and
// stderr together) and that cell's error, naming the cell.
func runAsCells(name, src string, timeout time.Duration) (string, error) {
	cells, err := programCells(src)
	if err != nil {
		return "", err
	}
	var out lockedBuffer
	s, err := emilyinterp.New(emilyinterp.Options{Stdout: &out, Stderr: &out, Args: []string{name}, InterruptGrace: time.Second})
	if err != nil {
		return "", err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for i, c := range cells {
		_, err := s.ExecuteFrom(ctx, emilyinterp.Origin{Name: name}, c, &out, &out)
		if ctx.Err() != nil {
			return out.String(), fmt.Errorf("timed out in cell %d (%s)", i+1, firstLine(c))
		}
		if err != nil {
			var e *emilyinterp.Error
			if errors.As(err, &e) {
				err = errors.New(strings.Join(e.Traceback(), "\n"))
			}
			return out.String(), fmt.Errorf("cell %d (%s): %w", i+1, firstLine(c), err)
		}
	}
	return out.String(), nil
}
