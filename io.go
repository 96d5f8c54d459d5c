package emily

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/emily-go/emily/internal/fileformat"
	"github.com/emily-go/emily/mlxbind"
)

// Saves go through MLX's own writers (mlx/io.h). Loads of .npy, .npz and
// .safetensors parse and check their headers in Go (internal/fileformat,
// loadcheck.go) and have the shim read the checked spans; .gguf goes
// through MLX's reader after mlxbind's header walk. Loads read the whole file
// now, so a truncated file fails in the call, not at first use. Saves
// write exactly the path given (no extension is added) through a temporary
// file beside it, so a failed save leaves an existing file untouched.

// Load reads a NumPy .npy file (np.save) into a tensor of its dtype: bool,
// int8…int64, uint8…uint64, float16, float32, float64 (CPU only, as in
// FromSlice), complex64, or bfloat16 (as MLX writes it). The header is
// parsed as the Python literal it is (any spacing or key order NumPy
// accepts), and the data's size is checked against the file and the
// memory limit before it is read.
//
//	x := emily.Load("x.npy")
func Load(path string) *Tensor {
	const op = "Load"
	checkReadable(op, path)
	sp, err := parseNPYFile(path)
	if err != nil {
		panic(loadError(op, path, err))
	}
	checkLoadMemory(op, path, sp.Bytes)
	spans, err := bindSpans([]fileformat.Span{sp}, 0)
	if err != nil {
		panic(loadError(op, path, err))
	}
	a, err := mlxbind.LoadSpans(path, nil, path, spans)
	if err != nil {
		panic(loadError(op, path, err))
	}
	return loaded(op, path, "", a[0])
}

// Save writes t to path as a NumPy .npy file.
func Save(path string, t *Tensor) {
	const op = "Save"
	t.mustConcrete(op)
	writeAtomic(op, path, "", func(tmp string) error { return mlxbind.SaveNPY(tmp, t.arr) }, t)
}

// LoadNPZ reads a NumPy .npz archive (np.savez or np.savez_compressed):
// one tensor per member, keyed by the member's name without ".npy", as
// np.load names them. Every member's header is checked, and the sizes of
// all of them (uncompressed) counted against the memory limit, before any
// member's data is read or decompressed.
func LoadNPZ(path string) map[string]*Tensor {
	const op = "LoadNPZ"
	checkReadable(op, path)
	z, err := zip.OpenReader(path)
	if err != nil {
		panic(loadError(op, path, err))
	}
	defer z.Close()
	var members []npzMember
	var total int64
	for _, f := range z.File {
		if f.FileInfo().IsDir() {
			continue
		}
		sp, err := npzMemberHeader(f)
		if err != nil {
			panic(loadError(op, path, fmt.Errorf("member %s: %w", f.Name, err)))
		}
		members = append(members, npzMember{f, sp})
		total += sp.Bytes
	}
	checkLoadMemory(op, path, total)
	out := make(map[string]*Tensor, len(members))
	for _, m := range members {
		a, err := readNPZMember(path, m)
		if err != nil {
			panic(loadError(op, path, fmt.Errorf("member %s: %w", m.f.Name, err)))
		}
		out[strings.TrimSuffix(m.f.Name, ".npy")] = loaded(op, path, m.f.Name, a)
	}
	return out
}

// readNPZMember reads one validated member: a stored member straight from
// the archive file, a compressed one through exactly the bytes its
// header announced.
func readNPZMember(path string, m npzMember) (*mlxbind.Array, error) {
	label := path + ":" + m.f.Name
	if m.f.Method == zip.Store {
		base, err := m.f.DataOffset()
		if err != nil {
			return nil, err
		}
		spans, err := bindSpans([]fileformat.Span{m.span}, base)
		if err != nil {
			return nil, err
		}
		a, err := mlxbind.LoadSpans(path, nil, label, spans)
		if err != nil {
			return nil, err
		}
		return a[0], nil
	}
	r, err := m.f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data := make([]byte, m.span.Offset+m.span.Bytes)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("data: %w (the member is shorter than its header announces)", err)
	}
	spans, err := bindSpans([]fileformat.Span{m.span}, 0)
	if err != nil {
		return nil, err
	}
	a, err := mlxbind.LoadSpans("", data, label, spans)
	if err != nil {
		return nil, err
	}
	return a[0], nil
}

// SaveNPZ writes tensors to path as a NumPy .npz archive (uncompressed, as
// np.savez writes), one "name.npy" member per tensor, in name order.
func SaveNPZ(path string, tensors map[string]*Tensor) {
	const op = "SaveNPZ"
	names := sortedNames(op, tensors)
	writeAtomic(op, path, "", func(tmp string) error {
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		z := zip.NewWriter(f)
		for _, name := range names {
			data, err := mlxbind.EncodeNPY(tensors[name].arr)
			if err != nil {
				f.Close()
				return fmt.Errorf("tensor %q: %w", name, err)
			}
			w, err := z.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
			if err == nil {
				_, err = w.Write(data)
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		if err := z.Close(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, mapValues(tensors)...)
}

// LoadSafetensors reads a .safetensors file: its tensors by name and its
// "__metadata__" strings (an empty map when it has none). Dtypes: bool,
// int8…int64, uint8…uint64, float16, bfloat16, float32, float64 (CPU
// only) and complex64. The header is checked to the format's spec (shapes,
// offsets within the file, the data covered exactly) and the tensors'
// size against the memory limit before any data is read.
func LoadSafetensors(path string) (map[string]*Tensor, map[string]string) {
	const op = "LoadSafetensors"
	checkReadable(op, path)
	st, err := parseSafetensorsFile(path)
	if err != nil {
		panic(loadError(op, path, err))
	}
	var total int64
	for _, sp := range st.Tensors {
		total += sp.Bytes
	}
	checkLoadMemory(op, path, total)
	spans, err := bindSpans(st.Tensors, 0)
	if err != nil {
		panic(loadError(op, path, err))
	}
	arrays, err := mlxbind.LoadSpans(path, nil, path, spans)
	if err != nil {
		panic(loadError(op, path, err))
	}
	tensors := make(map[string]*Tensor, len(arrays))
	for i, a := range arrays {
		tensors[st.Tensors[i].Name] = loaded(op, path, st.Tensors[i].Name, a)
	}
	return tensors, st.Meta
}

// parseSafetensorsFile reads and validates a safetensors file's header.
func parseSafetensorsFile(path string) (*fileformat.Safetensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pre, err := readHead(f, 8, fi.Size())
	if err != nil {
		return nil, err
	}
	n, err := fileformat.HeaderLen(pre, fi.Size())
	if err != nil {
		return nil, err
	}
	rest, err := readHead(f, n, n)
	if err != nil {
		return nil, err
	}
	return fileformat.ParseSafetensors(append(pre, rest...), fi.Size())
}

// SaveSafetensors writes tensors and string metadata (nil for none) to
// path in the safetensors format. Every dtype but float64 is accepted.
func SaveSafetensors(path string, tensors map[string]*Tensor, metadata map[string]string) {
	const op = "SaveSafetensors"
	sortedNames(op, tensors)
	for name, t := range tensors {
		if t.DType() == Float64 {
			panic(&Error{Op: op, Shapes: []string{describe(t)}, Err: fmt.Errorf("%s: tensor %q is float64, which MLX's safetensors writer does not support", path, name),
				Hint: "convert it with Astype(emily.Float32) first"})
		}
	}
	b := &mlxbind.Bundle{Arrays: arraysOf(tensors), Meta: map[string]mlxbind.Meta{}}
	for k, v := range metadata {
		b.Meta[k] = mlxbind.Meta{Kind: mlxbind.MetaString, Strings: []string{v}}
	}
	writeAtomic(op, path, "", func(tmp string) error { return mlxbind.SaveSafetensors(tmp, b) }, mapValues(tensors)...)
}

// LoadGGUF reads a .gguf file: its tensors by name (float32, float16,
// int8, int16, int32; quantized Q4_0, Q4_1 and Q8_0 tensors come back as
// MLX's reader gives them, other quantizations as float16) and its
// metadata: each value a string, a []string, or a *Tensor (0-d for a
// number, 1-d for a list of numbers; float64 numbers come back float32).
//
//	w, meta := emily.LoadGGUF("model.gguf")
//	name := meta["general.name"].(string)
func LoadGGUF(path string) (map[string]*Tensor, map[string]any) {
	const op = "LoadGGUF"
	checkReadable(op, path)
	b, err := mlxbind.LoadGGUF(path, func(n int64) error {
		checkLoadMemory(op, path, n)
		return nil
	})
	if err != nil {
		panic(loadError(op, path, err))
	}
	tensors := make(map[string]*Tensor, len(b.Arrays))
	for name, a := range b.Arrays {
		tensors[name] = loaded(op, path, name, a)
	}
	meta := make(map[string]any, len(b.Meta))
	for k, m := range b.Meta {
		switch m.Kind {
		case mlxbind.MetaString:
			meta[k] = m.Strings[0]
		case mlxbind.MetaStrings:
			meta[k] = m.Strings
		default:
			meta[k] = loaded(op, path, k, m.Array)
		}
	}
	return tensors, meta
}

// SaveGGUF writes tensors (float32, float16, int8, int16 or int32, as MLX
// writes gguf) and metadata (nil for none) to path. A metadata value is a
// string, a []string, a Go number or a slice of one (as FromSlice takes
// them; not float64, which MLX's gguf writer lacks: use float32), or a 0-d
// or 1-d *Tensor.
//
//	emily.SaveGGUF("w.gguf", map[string]*emily.Tensor{"w": w},
//		map[string]any{"general.name": "demo", "demo.eps": float32(1e-5)})
func SaveGGUF(path string, tensors map[string]*Tensor, metadata map[string]any) {
	const op = "SaveGGUF"
	sortedNames(op, tensors)
	for name, t := range tensors {
		switch t.DType() {
		case Float32, Float16, Int8, Int16, Int32:
		default:
			panic(&Error{Op: op, Shapes: []string{describe(t)}, Err: fmt.Errorf("%s: tensor %q is %s; MLX writes gguf tensors of float32, float16, int8, int16 and int32", path, name, t.DType()),
				Hint: "convert it with Astype, e.g. Astype(emily.Float16)"})
		}
	}
	b := &mlxbind.Bundle{Arrays: arraysOf(tensors), Meta: map[string]mlxbind.Meta{}}
	var keep []*Tensor
	for k, v := range metadata {
		m, t := ggufMeta(op, path, k, v)
		b.Meta[k] = m
		if t != nil {
			keep = append(keep, t)
		}
	}
	writeAtomic(op, path, ".gguf", func(tmp string) error { return mlxbind.SaveGGUF(tmp, b) }, append(mapValues(tensors), keep...)...)
}

// ggufMeta converts one metadata value for SaveGGUF.
func ggufMeta(op, path, key string, v any) (mlxbind.Meta, *Tensor) {
	fail := func(err error, hint string) {
		panic(&Error{Op: op, Err: fmt.Errorf("%s: metadata %q: %w", path, key, err), Hint: hint})
	}
	const hint = "pass a string, []string, a Go number or number slice (float32, not float64), or a 0-d or 1-d *Tensor"
	var t *Tensor
	switch x := v.(type) {
	case string:
		return mlxbind.Meta{Kind: mlxbind.MetaString, Strings: []string{x}}, nil
	case []string:
		return mlxbind.Meta{Kind: mlxbind.MetaStrings, Strings: append([]string{}, x...)}, nil
	case *Tensor:
		x.mustConcrete(op)
		t = x
	case float64, []float64:
		fail(fmt.Errorf("float64 values are not supported by MLX's gguf writer"), "convert to float32, e.g. float32(x)")
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32:
		t = scalarOf(op, x)
	default:
		data, n, dt, err := encode(v)
		if err != nil {
			fail(fmt.Errorf("unsupported value of type %T", v), hint)
		}
		t = fromBytes(op, data, []int{n}, dt)
	}
	if t.Rank() > 1 || t.Size() == 0 {
		fail(fmt.Errorf("a %s tensor; gguf metadata holds a number or a non-empty list", describe(t)), hint)
	}
	if t.DType() == Float64 || t.DType() == Float16 || t.DType() == BFloat16 || t.DType() == Complex64 {
		fail(fmt.Errorf("%s values are not supported by MLX's gguf writer", t.DType()), "convert with Astype(emily.Float32)")
	}
	return mlxbind.Meta{Kind: mlxbind.MetaArray, Array: t.arr}, t
}

// scalarOf makes a 0-d tensor of a Go number's own dtype.
func scalarOf(op string, v any) *Tensor {
	var s any
	switch x := v.(type) {
	case bool:
		s = []bool{x}
	case int:
		s = []int{x}
	case int8:
		s = []int8{x}
	case int16:
		s = []int16{x}
	case int32:
		s = []int32{x}
	case int64:
		s = []int64{x}
	case uint:
		s = []uint{x}
	case uint8:
		s = []uint8{x}
	case uint16:
		s = []uint16{x}
	case uint32:
		s = []uint32{x}
	case uint64:
		s = []uint64{x}
	case float32:
		s = []float32{x}
	}
	data, _, dt, err := encode(s)
	if err != nil {
		panic(&Error{Op: op, Err: err, Hint: fromSliceHint})
	}
	return fromBytes(op, data, nil, dt)
}

// loaded wraps a loaded array as a tensor on the default device.
func loaded(op, path, name string, a *mlxbind.Array) *Tensor {
	s := defaultStream()
	if err := checkDeviceDType(a.DType(), s.Device()); err != nil {
		what := path
		if name != "" {
			what = fmt.Sprintf("%s: %q", path, name)
		}
		panic(&Error{Op: op, Err: fmt.Errorf("%s: %w", what, err),
			Hint: "store it as float32 (in NumPy: x.astype(np.float32)), or call emily.SetDefaultDevice(\"cpu\") first to load float64"})
	}
	return track(&Tensor{arr: a, stream: s})
}

// checkReadable fails early and plainly for a missing file or a directory,
// before MLX's reader would report a bare "failed to open".
func checkReadable(op, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		hint := "check the path"
		if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(path) {
			if wd, werr := os.Getwd(); werr == nil {
				hint = fmt.Sprintf("check the path; relative paths start at the working directory %s", wd)
			}
		}
		panic(&Error{Op: op, Err: err, Hint: hint})
	}
	if fi.IsDir() {
		panic(&Error{Op: op, Err: fmt.Errorf("%s is a directory", path), Hint: "pass a file"})
	}
}

// loadError wraps a reader's failure, naming the file and, when its first
// bytes say it is another format, the loader to use instead.
func loadError(op, path string, err error) *Error {
	hint := loadHints[op]
	if strings.Contains(err.Error(), "truncated") {
		hint = "the file is incomplete or its header is wrong: copy or save it again"
	}
	if kind := sniff(path); kind != "" && formatLoaders[kind] != op {
		hint = fmt.Sprintf("%s looks like a %s file: use emily.%s", path, kind, formatLoaders[kind])
	}
	if strings.Contains(err.Error(), path) {
		return &Error{Op: op, Err: err, Hint: hint}
	}
	return &Error{Op: op, Err: fmt.Errorf("%s: %w", path, err), Hint: hint}
}

var loadHints = map[string]string{
	"Load":            "Load reads NumPy .npy files of bool, int8…int64, uint8…uint64, float16, float32, float64, complex64 or bfloat16; convert other dtypes in NumPy first (x.astype(np.float32))",
	"LoadNPZ":         "LoadNPZ reads NumPy .npz archives (np.savez) whose members are .npy files of dtypes MLX has; convert other dtypes in NumPy first",
	"LoadSafetensors": "the file must be a complete .safetensors file of bool, int, uint, float16, bfloat16, float32, float64 or complex64 tensors; re-save it with safetensors' save_file",
	"LoadGGUF":        "the file must be a complete .gguf file (version 3)",
}

var formatLoaders = map[string]string{".npy": "Load", ".npz": "LoadNPZ", ".gguf": "LoadGGUF", ".safetensors": "LoadSafetensors"}

// sniff names a file's format from its first bytes ("" when unknown).
func sniff(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 9)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		return ".npy"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return ".npz"
	case bytes.HasPrefix(head, []byte("GGUF")):
		return ".gguf"
	case n == 9 && head[8] == '{':
		return ".safetensors" // 8-byte header length, then the JSON header
	}
	return ""
}

// writeAtomic runs write on a temporary name beside path (ending in suffix
// when the writer needs one) and renames it over path on success. The
// tensors stay reachable until the write is done.
func writeAtomic(op, path, suffix string, write func(tmp string) error, tensors ...*Tensor) {
	for _, t := range tensors {
		t.mustConcrete(op)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		panic(&Error{Op: op, Err: fmt.Errorf("%s is a directory", path), Hint: "pass a file path"})
	}
	tmp := fmt.Sprintf("%s.%d-%d.tmp%s", path, os.Getpid(), rand.Uint32(), suffix)
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		hint := "check that the directory exists and is writable"
		if _, serr := os.Stat(filepath.Dir(path)); serr == nil {
			hint = saveHints[op]
		}
		msg := strings.ReplaceAll(err.Error(), tmp, path)
		panic(&Error{Op: op, Err: fmt.Errorf("%s: %s", path, msg), Hint: hint})
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		panic(&Error{Op: op, Err: err, Hint: "check that the directory is writable"})
	}
}

var saveHints = map[string]string{
	"Save":            "check the tensor's dtype and that the directory is writable",
	"SaveNPZ":         "check the tensors' dtypes and that the directory is writable",
	"SaveSafetensors": "check the tensors' dtypes and that the directory is writable",
	"SaveGGUF":        "gguf tensors must be float32, float16, int8, int16 or int32, and metadata numbers non-empty and at most 1-d",
}

// sortedNames returns the map's names in order, rejecting nil tensors.
func sortedNames(op string, tensors map[string]*Tensor) []string {
	names := make([]string, 0, len(tensors))
	for name, t := range tensors {
		if t == nil {
			panic(&Error{Op: op, Err: fmt.Errorf("tensor %q is nil", name), Hint: "remove it from the map or give it a value"})
		}
		t.mustConcrete(op)
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func arraysOf(tensors map[string]*Tensor) map[string]*mlxbind.Array {
	out := make(map[string]*mlxbind.Array, len(tensors))
	for name, t := range tensors {
		out[name] = t.arr
	}
	return out
}

func mapValues(tensors map[string]*Tensor) []*Tensor {
	out := make([]*Tensor, 0, len(tensors))
	for _, t := range tensors {
		out = append(out, t)
	}
	return out
}
