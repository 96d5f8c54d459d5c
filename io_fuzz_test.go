package emily_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/emily-go/emily"
)

// The loaders' fuzz targets (make fuzz; plain go test runs the seeds):
// whatever the bytes, a loader returns tensors or panics with an
// *emily.Error, never another panic or a crash of the shim.

// loadsOrFails runs f and fails the test on any panic but an *emily.Error.
func loadsOrFails(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			var e *emily.Error
			if err, ok := r.(error); !ok || !errors.As(err, &e) {
				t.Fatalf("panic that is not an *emily.Error: %v", r)
			}
		}
	}()
	f()
}

func fuzzFile(t *testing.T, dir, name string, b []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func npySeed(header string, data []byte) []byte {
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(append(b, header...), data...)
}

func FuzzLoad(f *testing.F) {
	f.Add(npySeed("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", make([]byte, 24)))
	f.Add(npySeed("{'descr': '>i8', 'fortran_order': True, 'shape': (3, 1), }\n", make([]byte, 24)))
	f.Add(npySeed("{'descr': '<V2', 'fortran_order':  False, 'shape': (), }\n", make([]byte, 2)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := fuzzFile(t, dir, "x.npy", b)
		loadsOrFails(t, func() { emily.Load(p) })
	})
}

func FuzzLoadNPZ(f *testing.F) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		w, _ := z.CreateHeader(&zip.FileHeader{Name: "a.npy", Method: method})
		w.Write(npySeed("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", make([]byte, 8)))
		z.Close()
		f.Add(buf.Bytes())
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := fuzzFile(t, dir, "x.npz", b)
		loadsOrFails(t, func() { emily.LoadNPZ(p) })
	})
}

func FuzzLoadSafetensors(f *testing.F) {
	seed := func(h string, n int) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(b, h...), make([]byte, n)...)
	}
	f.Add(seed(`{"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}`, 16))
	f.Add(seed(`{"__metadata__":{"a":"b"},"s":{"dtype":"BF16","shape":[],"data_offsets":[0,2]}}`, 2))
	f.Add(seed(`{"x":{"dtype":"F32","shape":[-2,-2],"data_offsets":[0,16]}}`, 16))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := fuzzFile(t, dir, "x.safetensors", b)
		loadsOrFails(t, func() { emily.LoadSafetensors(p) })
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("x,y\n1,2\n3,4\n"))
	f.Add([]byte("1;2\n\"3\";  4e400\n"))
	f.Add([]byte("1,2\n3\n"))
	f.Add([]byte(",,,\n,,,\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		loadsOrFails(t, func() { emily.ReadCSV(bytes.NewReader(b)) })
	})
}
