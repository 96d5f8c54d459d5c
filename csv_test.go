package emily_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		opts  []emily.CSVOption
		shape []int
		want  any
	}{
		{"header detected", "x,y,label\n1,2.5,3\n4,5,6\n", nil, []int{2, 3}, []float32{1, 2.5, 3, 4, 5, 6}},
		{"no header", "1,2\n3,4", nil, []int{2, 2}, []float32{1, 2, 3, 4}},
		{"quoted, spaces, CRLF", "\"a\", \"b\"\r\n \"1\",  2 \r\n", nil, []int{1, 2}, []float32{1, 2}},
		{"columns reorder, negative", "a,b,c\n1,2,3\n4,5,6\n", []emily.CSVOption{emily.CSVColumns(-1, 0)}, []int{2, 2}, []float32{3, 1, 6, 4}},
		{"tab, comment, skip", "# made by hand\nskip me\t0\n7\t8\n", []emily.CSVOption{emily.CSVDelimiter('\t'), emily.CSVComment('#'), emily.CSVSkipRows(1)}, []int{1, 2}, []float32{7, 8}},
		{"int64 exact", "9007199254740993,-1\n", []emily.CSVOption{emily.CSVDType(emily.Int64)}, []int{1, 2}, []int64{9007199254740993, -1}},
		{"uint8", "0,255\n", []emily.CSVOption{emily.CSVDType(emily.Uint8)}, []int{1, 2}, []uint8{0, 255}},
		{"bool", "true,0\nF,1\n", []emily.CSVOption{emily.CSVDType(emily.Bool)}, []int{2, 2}, []bool{true, false, false, true}},
		{"complex", "1+2i,3\n", []emily.CSVOption{emily.CSVDType(emily.Complex64)}, []int{1, 2}, []complex64{1 + 2i, 3}},
		{"header only", "a,b\n", nil, []int{0, 2}, []float32{}},
		{"empty", "", nil, []int{0, 0}, []float32{}},
		{"skip 0 keeps a text-free first row", "1,2\n", []emily.CSVOption{emily.CSVSkipRows(0)}, []int{1, 2}, []float32{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := emily.ReadCSV(strings.NewReader(tc.text), tc.opts...)
			if !equalInts(x.Shape(), tc.shape) {
				t.Fatalf("shape %v, want %v", x.Shape(), tc.shape)
			}
			var got any
			switch tc.want.(type) {
			case []float32:
				got = x.ToFloat32s()
			case []int64:
				got = x.ToInt64s()
			case []uint8:
				got = x.ToUint8s()
			case []bool:
				got = x.ToBools()
			case []complex64:
				got = x.ToComplex64s()
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("values %v, want %v", got, tc.want)
			}
		})
	}
	// Empty float fields and NaN/Inf spellings.
	got := emily.ReadCSV(strings.NewReader("1,,NaN,-Inf\n")).ToFloat64s()
	if got[0] != 1 || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) || !math.IsInf(got[3], -1) {
		t.Fatalf("NaN/Inf fields: %v", got)
	}
	// float32 fields round once, from the decimal text.
	if got := emily.ReadCSV(strings.NewReader("0.1\n")).ToFloat32s(); got[0] != float32(0.1) {
		t.Fatalf("0.1 read as %v", got)
	}
}

func TestLoadCSVAndItsErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.csv")
	os.WriteFile(p, []byte("a,b\n1,2\n3,x\n"), 0o644)
	ragged := filepath.Join(dir, "r.csv")
	os.WriteFile(ragged, []byte("1,2\n3\n"), 0o644)
	if got := emily.LoadCSV(p, emily.CSVColumns(0)).ToFloat32s(); !reflect.DeepEqual(got, []float32{1, 3}) {
		t.Fatalf("column 0: %v", got)
	}
	tests := []struct {
		name  string
		fn    func()
		wants []string
	}{
		{"bad number", func() { emily.LoadCSV(p) }, []string{"emily.LoadCSV", "d.csv: line 3, column 1: \"x\" is not a float32", "fix:", "CSVColumns"}},
		{"bad int", func() { emily.ReadCSV(strings.NewReader("1.5"), emily.CSVDType(emily.Int32)) }, []string{"emily.ReadCSV", "line 1, column 0: \"1.5\" is not an int32"}},
		{"int overflow", func() { emily.ReadCSV(strings.NewReader("300"), emily.CSVDType(emily.Uint8)) }, []string{"\"300\" is not a uint8"}},
		{"empty int", func() { emily.ReadCSV(strings.NewReader("1,"), emily.CSVDType(emily.Int64)) }, []string{"\"\" is not an int64"}},
		{"ragged", func() { emily.LoadCSV(ragged) }, []string{"r.csv", "wrong number of fields"}},
		{"no column", func() { emily.LoadCSV(p, emily.CSVColumns(2)) }, []string{"has 2 fields, no column 2"}},
		{"dtype", func() { emily.ReadCSV(strings.NewReader("1"), emily.CSVDType(emily.BFloat16)) }, []string{"cannot make bfloat16", "CSVDType"}},
		{"missing", func() { emily.LoadCSV(filepath.Join(dir, "none.csv")) }, []string{"none.csv", "no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := emily.Try(tc.fn)
			var e *emily.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *emily.Error", err, err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
