// Package magic holds the session's magics (%jit, %%jit, %ir, %config,
// %time, %%time, %timeit, %%timeit, %who, %whos, %memory, %help, %load,
// and the messages of %reset and %replay, which the supervisor runs):
// what their arguments mean, what they print and how they time code. It
// reaches the session only through Host, which interp.Session implements
// (interp/host.go), so a magic is read and changed here without the
// interpreter: this package imports no yaegi.
//
// What lives where:
//
//   - interp/cell: the magic-line grammar (cell.Magics, cell.SortMagics),
//     which Run and Time take their cell.Magic from;
//   - host.go: the Host interface, and the Error a magic returns (the
//     session turns it into its own *interp.Error);
//   - magic.go: dispatch (Run), %config, %load, %help (help.md, embedded:
//     %help and the docs are one text);
//   - vars.go: %who, %whos, %memory;
//   - time.go, timed.go: %time and %timeit, with the wrapper that makes
//     the timed code return what it produces so that its tensors are
//     evaluated inside the timing;
//   - jit.go, stats.go: %jit (options, warnings, compiling, listing),
//     %%jit, %ir and %jit --stats. The session keeps the registry and
//     binds a jitted name in the interpreter (Host.BindJit).
//
// It imports the emily root package and compiler, which need cgo (MLX):
// the magics are about tensors and jitted functions. %whos shows a
// tensor's shape, dtype and device; %time and %timeit evaluate the
// tensors the timed code produces (MLX is lazy); %memory reads MLX's
// allocator; %jit compiles with emily.CompileNamed and parses options with
// compiler.ParseOptions; %config sets emily's and the compiler's defaults.
// Hiding those behind Host would move the magics' logic back into the
// session.
package magic
