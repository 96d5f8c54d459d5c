package mlxbind

/*
#include <stdlib.h>
#include "io.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Files go through MLX's own readers and writers (io.cc). Loads evaluate
// on the CPU stream, which every build has: reading a file is host work,
// and the arrays are then usable from any stream.

// MetaKind is the kind of a metadata value in a Bundle.
type MetaKind int

// Metadata kinds: safetensors has only strings; gguf has all three.
const (
	MetaString  MetaKind = C.EMILY_META_STRING
	MetaStrings MetaKind = C.EMILY_META_STRINGS
	MetaArray   MetaKind = C.EMILY_META_ARRAY
)

// Meta is one metadata value: Strings holds the one string of a
// MetaString or the list of a MetaStrings; Array the value of a MetaArray
// (a 0-d array for a scalar).
type Meta struct {
	Kind    MetaKind
	Strings []string
	Array   *Array
}

// Bundle is what .safetensors and .gguf files hold: named arrays and
// metadata.
type Bundle struct {
	Arrays map[string]*Array
	Meta   map[string]Meta
}

func hostStream() (Stream, error) { return DefaultStream(CPU) }

// LoadNPY reads a .npy file.
func LoadNPY(path string) (*Array, error) {
	if err := checkNPYFile(path); err != nil {
		return nil, fmt.Errorf("[load] %s: %w", path, err)
	}
	s, err := hostStream()
	if err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var h C.emily_array
	var msg *C.char
	if err := takeError(C.emily_load_npy(&h, cpath, s.index, &msg), msg, "load_npy"); err != nil {
		return nil, err
	}
	checkMemoryPressure()
	return newArray(h), nil
}

// SaveNPY writes a as a .npy file at exactly path.
func SaveNPY(path string, a *Array) error {
	h, err := a.handle("mlxbind.SaveNPY")
	if err != nil {
		return err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var msg *C.char
	status := C.emily_save_npy(h, cpath, &msg)
	runtime.KeepAlive(a)
	return takeError(status, msg, "save_npy")
}

// EncodeNPY returns a in .npy format.
func EncodeNPY(a *Array) ([]byte, error) {
	h, err := a.handle("mlxbind.EncodeNPY")
	if err != nil {
		return nil, err
	}
	var data unsafe.Pointer
	var n C.size_t
	var msg *C.char
	status := C.emily_npy_encode(h, &data, &n, &msg)
	runtime.KeepAlive(a)
	if err := takeError(status, msg, "npy_encode"); err != nil {
		return nil, err
	}
	defer C.free(data)
	return C.GoBytes(data, C.int(n)), nil
}

// DecodeNPY reads .npy bytes; label names them in errors.
func DecodeNPY(data []byte, label string) (*Array, error) {
	if err := checkNPY(data, int64(len(data))); err != nil {
		return nil, fmt.Errorf("[load] %s: %w", label, err)
	}
	s, err := hostStream()
	if err != nil {
		return nil, err
	}
	clabel := C.CString(label)
	defer C.free(unsafe.Pointer(clabel))
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = unsafe.Pointer(&data[0])
	}
	var h C.emily_array
	var msg *C.char
	status := C.emily_npy_decode(&h, ptr, C.size_t(len(data)), clabel, s.index, &msg)
	runtime.KeepAlive(data)
	if err := takeError(status, msg, "npy_decode"); err != nil {
		return nil, err
	}
	checkMemoryPressure()
	return newArray(h), nil
}

// LoadSafetensors reads a .safetensors file: its tensors and its string
// metadata.
func LoadSafetensors(path string) (*Bundle, error) {
	return load(path, "load_safetensors", func(out *C.emily_io, p *C.char, s C.int, msg **C.char) C.int {
		return C.emily_load_safetensors(out, p, s, msg)
	})
}

// LoadGGUF reads a .gguf file: its tensors (quantized ones come back as
// float16, as MLX's reader gives them) and its metadata. The header is
// walked first (checkGGUF); then fits, when not nil, is asked whether the
// tensors' size in bytes may be loaded, before MLX reads anything.
func LoadGGUF(path string, fits func(bytes int64) error) (*Bundle, error) {
	n, err := checkGGUFSize(path)
	if err != nil {
		return nil, err
	}
	if fits != nil {
		if err := fits(n); err != nil {
			return nil, err
		}
	}
	return load(path, "load_gguf", func(out *C.emily_io, p *C.char, s C.int, msg **C.char) C.int {
		return C.emily_load_gguf(out, p, s, msg)
	})
}

// SaveSafetensors writes b at exactly path; its metadata must be strings.
func SaveSafetensors(path string, b *Bundle) error {
	return save(path, b, "save_safetensors", func(h C.emily_io, p *C.char, msg **C.char) C.int {
		return C.emily_save_safetensors(h, p, msg)
	})
}

// SaveGGUF writes b at path, which must end in ".gguf".
func SaveGGUF(path string, b *Bundle) error {
	return save(path, b, "save_gguf", func(h C.emily_io, p *C.char, msg **C.char) C.int {
		return C.emily_save_gguf(h, p, msg)
	})
}

func load(path, op string, call func(*C.emily_io, *C.char, C.int, **C.char) C.int) (*Bundle, error) {
	s, err := hostStream()
	if err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var h C.emily_io
	var msg *C.char
	if err := takeError(call(&h, cpath, s.index, &msg), msg, op); err != nil {
		return nil, err
	}
	defer C.emily_io_free(h)
	checkMemoryPressure()
	return readBundle(h, op)
}

// readBundle copies a shim bundle into Go: new array handles, Go strings.
func readBundle(h C.emily_io, op string) (*Bundle, error) {
	var nArrays, nMeta C.int
	C.emily_io_counts(h, &nArrays, &nMeta)
	b := &Bundle{Arrays: make(map[string]*Array, int(nArrays)), Meta: make(map[string]Meta, int(nMeta))}
	for i := C.int(0); i < nArrays; i++ {
		var n C.size_t
		name := C.GoStringN(C.emily_io_name(h, i, &n), C.int(n))
		var ah C.emily_array
		var msg *C.char
		if err := takeError(C.emily_io_array(&ah, h, i, &msg), msg, op); err != nil {
			return nil, err
		}
		b.Arrays[name] = newArray(ah)
	}
	for i := C.int(0); i < nMeta; i++ {
		var n C.size_t
		var kind, nStrings C.int
		key := C.GoStringN(C.emily_io_meta_key(h, i, &n, &kind, &nStrings), C.int(n))
		m := Meta{Kind: MetaKind(kind)}
		for j := C.int(0); j < nStrings; j++ {
			m.Strings = append(m.Strings, C.GoStringN(C.emily_io_meta_string(h, i, j, &n), C.int(n)))
		}
		if m.Kind == MetaStrings && m.Strings == nil {
			m.Strings = []string{}
		}
		if m.Kind == MetaArray {
			var ah C.emily_array
			var msg *C.char
			if err := takeError(C.emily_io_meta_array(&ah, h, i, &msg), msg, op); err != nil {
				return nil, err
			}
			m.Array = newArray(ah)
		}
		b.Meta[key] = m
	}
	return b, nil
}

func save(path string, b *Bundle, op string, call func(C.emily_io, *C.char, **C.char) C.int) error {
	var h C.emily_io
	var msg *C.char
	if err := takeError(C.emily_io_new(&h, &msg), msg, op); err != nil {
		return err
	}
	defer C.emily_io_free(h)
	// The handles must stay live until the shim holds its own references.
	var keep []*Array
	for name, a := range b.Arrays {
		ah, err := a.handle(fmt.Sprintf("%s: tensor %q", op, name))
		if err != nil {
			return err
		}
		keep = append(keep, a)
		cname := C.CString(name)
		status := C.emily_io_add_array(h, cname, C.size_t(len(name)), ah, &msg)
		C.free(unsafe.Pointer(cname))
		if err := takeError(status, msg, op); err != nil {
			return err
		}
	}
	for key, m := range b.Meta {
		var ah C.emily_array
		if m.Kind == MetaArray {
			var err error
			if ah, err = m.Array.handle(fmt.Sprintf("%s: metadata %q", op, key)); err != nil {
				return err
			}
			keep = append(keep, m.Array)
		}
		ckey := C.CString(key)
		status := C.emily_io_add_meta(h, ckey, C.size_t(len(key)), C.int(m.Kind), ah, &msg)
		C.free(unsafe.Pointer(ckey))
		if err := takeError(status, msg, op); err != nil {
			return err
		}
		for _, s := range m.Strings {
			cs := C.CString(s)
			status := C.emily_io_add_meta_string(h, cs, C.size_t(len(s)), &msg)
			C.free(unsafe.Pointer(cs))
			if err := takeError(status, msg, op); err != nil {
				return err
			}
		}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	status := call(h, cpath, &msg)
	runtime.KeepAlive(keep)
	if err := takeError(status, msg, op); err != nil {
		return err
	}
	checkMemoryPressure()
	return nil
}
