// Package cell is the grammar of a session's cells: what a notebook cell
// or REPL entry means before anything runs. It uses go/scanner, go/parser
// and go/ast only: no interpreter, no cgo, so it is tested without MLX.
//
//   - magic.go: the one magic-line grammar (line magics anywhere, cell
//     magics first), shared by the session and is-complete;
//   - split.go: cutting Go code into top-level units (declarations and
//     statements, which a cell may mix in any order);
//   - plan.go: grouping the units into chunks and ordering them with the
//     line magics into the steps a cell runs, as a Go file would (its
//     declarations see each other) and in cell order otherwise;
//   - rewrite.go: each chunk's source as yaegi takes it, its syntax tree,
//     and the edits the session makes (interrupt checks, goroutine
//     recovers), which never add lines;
//   - source.go: rendering a chunk with its edits, positions in the cell;
//   - complete.go: whether a cell is complete, incomplete or invalid, the
//     answer of the REPL's continuation prompt and of Jupyter's
//     is_complete_request.
package cell
