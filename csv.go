package emily

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// CSVOption configures LoadCSV and ReadCSV.
type CSVOption func(*csvConfig)

type csvConfig struct {
	comma, comment rune
	skip           int // rows to skip; -1: skip the first row when it is all text
	columns        []int
	dtype          DType
}

// CSVDelimiter sets the field separator (default ',', e.g. '\t' or ';').
func CSVDelimiter(r rune) CSVOption { return func(c *csvConfig) { c.comma = r } }

// CSVComment makes lines that start with r comments, skipped (e.g. '#').
func CSVComment(r rune) CSVOption { return func(c *csvConfig) { c.comment = r } }

// CSVSkipRows skips the first n rows (comments do not count). Without it, a
// first row whose fields are all text, such as "x,y,label", is taken as a
// header and skipped; CSVSkipRows(0) keeps every row.
func CSVSkipRows(n int) CSVOption { return func(c *csvConfig) { c.skip = n } }

// CSVColumns keeps only the given columns, in that order; a negative index
// counts from the end (-1 is the last column).
func CSVColumns(cols ...int) CSVOption {
	return func(c *csvConfig) { c.columns = append([]int(nil), cols...) }
}

// CSVDType sets the tensor's dtype (default Float32): any float, integer,
// bool or complex64 dtype but float16 and bfloat16 (load float32 and
// Astype).
func CSVDType(dt DType) CSVOption { return func(c *csvConfig) { c.dtype = dt } }

// LoadCSV reads a CSV file of numbers into a 2-D tensor, [rows, columns],
// parsed with Go's encoding/csv. Fields may be quoted and padded with
// spaces; an empty field is NaN in a float tensor and an error otherwise.
//
//	x := emily.LoadCSV("iris.csv", emily.CSVColumns(0, 1, 2, 3))
func LoadCSV(path string, opts ...CSVOption) *Tensor {
	const op = "LoadCSV"
	checkReadable(op, path)
	f, err := os.Open(path)
	if err != nil {
		panic(&Error{Op: op, Err: err, Hint: "check that the file is readable"})
	}
	defer f.Close()
	return readCSV(op, path, f, opts)
}

// ReadCSV reads CSV text from r into a 2-D tensor, as LoadCSV does.
//
//	x := emily.ReadCSV(strings.NewReader("1,2\n3,4"))
func ReadCSV(r io.Reader, opts ...CSVOption) *Tensor {
	return readCSV("ReadCSV", "", r, opts)
}

const csvHint = "keep numeric columns with emily.CSVColumns(…), skip header rows with emily.CSVSkipRows(n), " +
	"or set the separator with emily.CSVDelimiter(';')"

func readCSV(op, path string, r io.Reader, opts []CSVOption) *Tensor {
	cfg := csvConfig{comma: ',', skip: -1, dtype: Float32}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	where := "line"
	if path != "" {
		where = path + ": line"
	}
	fail := func(err error, hint string) {
		if path != "" && !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		panic(&Error{Op: op, Err: err, Hint: hint})
	}
	col, err := newCSVColumn(cfg.dtype)
	if err != nil {
		fail(err, "use emily.CSVDType with Float32, Float64, an integer dtype, Bool or Complex64")
	}
	cr := csv.NewReader(r)
	cr.Comma, cr.Comment = cfg.comma, cfg.comment
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true // "1, 2" and `"a", "b"` are common by hand
	rows, width, first := 0, -1, true
	fields := []string{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err, csvHint)
		}
		if cfg.skip > 0 {
			cfg.skip--
			continue
		}
		line, _ := cr.FieldPos(0)
		fields = fields[:0]
		if cfg.columns == nil {
			fields = append(fields, rec...)
		}
		for _, c := range cfg.columns {
			i := c
			if i < 0 {
				i += len(rec)
			}
			if i < 0 || i >= len(rec) {
				fail(fmt.Errorf("%s %d has %d fields, no column %d", where, line, len(rec), c), "pick columns 0 to n-1, or -1 for the last")
			}
			fields = append(fields, rec[i])
		}
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if first && cfg.skip < 0 && allText(fields) {
			first = false
			if width < 0 {
				width = len(fields)
			}
			continue // a header
		}
		first = false
		width = len(fields)
		for i, s := range fields {
			if err := col.add(s); err != nil {
				c := i
				if cfg.columns != nil {
					if c = cfg.columns[i]; c < 0 {
						c += len(rec)
					}
				}
				fail(fmt.Errorf("%s %d, column %d: %q is not %s", where, line, c, s, article(cfg.dtype)), csvHint)
			}
		}
		rows++
	}
	if width < 0 {
		width = 0
	}
	data, n, dt, err := encode(col.values())
	if err != nil || n != rows*width {
		fail(fmt.Errorf("internal: %d values for %d×%d (%v)", n, rows, width, err), "")
	}
	return fromBytes(op, data, []int{rows, width}, dt)
}

// allText reports whether every field is non-numeric text, as in a header.
func allText(fields []string) bool {
	for _, s := range fields {
		if s == "" {
			return false
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return false
		}
		if _, err := strconv.ParseBool(s); err == nil {
			return false
		}
	}
	return len(fields) > 0
}

func article(dt DType) string {
	if dt == Int8 || dt == Int16 || dt == Int32 || dt == Int64 {
		return "an " + dt.String()
	}
	return "a " + dt.String()
}

// csvColumn collects parsed values in a slice of the dtype's Go type.
type csvColumn interface {
	add(s string) error
	values() any
}

type typedColumn[T any] struct {
	vals  []T
	parse func(string) (T, error)
}

func (c *typedColumn[T]) add(s string) error {
	v, err := c.parse(s)
	if err != nil {
		return err
	}
	c.vals = append(c.vals, v)
	return nil
}

func (c *typedColumn[T]) values() any {
	if c.vals == nil {
		return []T{}
	}
	return c.vals
}

func column[T any](parse func(string) (T, error)) csvColumn {
	return &typedColumn[T]{parse: parse}
}

func parseInt[T int8 | int16 | int32 | int64](bits int) func(string) (T, error) {
	return func(s string) (T, error) {
		v, err := strconv.ParseInt(s, 10, bits)
		return T(v), err
	}
}

func parseUint[T uint8 | uint16 | uint32 | uint64](bits int) func(string) (T, error) {
	return func(s string) (T, error) {
		v, err := strconv.ParseUint(s, 10, bits)
		return T(v), err
	}
}

func newCSVColumn(dt DType) (csvColumn, error) {
	switch dt {
	case mlxbind.Float32:
		return column(func(s string) (float32, error) {
			if s == "" {
				return float32(nan()), nil
			}
			v, err := strconv.ParseFloat(s, 32)
			return float32(v), err
		}), nil
	case mlxbind.Float64:
		return column(func(s string) (float64, error) {
			if s == "" {
				return nan(), nil
			}
			return strconv.ParseFloat(s, 64)
		}), nil
	case mlxbind.Complex64:
		return column(func(s string) (complex64, error) {
			v, err := strconv.ParseComplex(s, 64)
			return complex64(v), err
		}), nil
	case mlxbind.Bool:
		return column(strconv.ParseBool), nil
	case mlxbind.Int8:
		return column(parseInt[int8](8)), nil
	case mlxbind.Int16:
		return column(parseInt[int16](16)), nil
	case mlxbind.Int32:
		return column(parseInt[int32](32)), nil
	case mlxbind.Int64:
		return column(parseInt[int64](64)), nil
	case mlxbind.Uint8:
		return column(parseUint[uint8](8)), nil
	case mlxbind.Uint16:
		return column(parseUint[uint16](16)), nil
	case mlxbind.Uint32:
		return column(parseUint[uint32](32)), nil
	case mlxbind.Uint64:
		return column(parseUint[uint64](64)), nil
	}
	return nil, fmt.Errorf("CSV cannot make %s tensors", dt)
}

func nan() float64 { return math.NaN() }
