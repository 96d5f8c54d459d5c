package mlxbind

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// checkNPY reads a .npy header and checks that the file holds the data it
// announces, before MLX's reader runs. MLX allocates the whole announced
// size before reading: a damaged header claiming shape (2000000000,
// 2000000000) made the process grow past 8 GB before it was stopped.
// head holds the start of the file (at least the header), size its length.
func checkNPY(head []byte, size int64) error {
	if len(head) < 10 || string(head[:6]) != "\x93NUMPY" {
		return fmt.Errorf("not a .npy file (it does not start with \\x93NUMPY)")
	}
	var hlen, off int64
	switch head[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(head[8:10])), 10
	case 2, 3:
		if len(head) < 12 {
			return fmt.Errorf("the .npy header is cut short")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(head[8:12])), 12
	default:
		return fmt.Errorf(".npy format version %d; MLX reads versions 1 and 2", head[6])
	}
	if off+hlen > int64(len(head)) || off+hlen > size {
		return fmt.Errorf("the .npy header (%d bytes) runs past the end of the file (truncated?)", hlen)
	}
	header := string(head[off : off+hlen])
	item, err := npyItemSize(header)
	if err != nil {
		return err
	}
	m := npyShape.FindStringSubmatch(header)
	if m == nil {
		return fmt.Errorf("the .npy header has no shape: %q", strings.TrimSpace(header))
	}
	n := item
	for _, d := range strings.Split(m[1], ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		v, err := strconv.ParseInt(d, 10, 64)
		if err != nil || v < 0 || v > math.MaxInt32 {
			return fmt.Errorf("the .npy header has a bad dimension %q", d)
		}
		if v != 0 && n > math.MaxInt64/v {
			return fmt.Errorf("the .npy header's shape (%s) is too large", m[1])
		}
		n *= v
	}
	if have := size - off - hlen; n > have {
		return fmt.Errorf("the .npy header announces %d bytes of data, the file holds %d (truncated?)", n, have)
	}
	return nil
}

var (
	npyShape = regexp.MustCompile(`['"]shape['"]\s*:\s*\(([^)]*)\)`)
	npyDescr = regexp.MustCompile(`['"]descr['"]\s*:\s*['"]([<>|=]?)([a-zA-Z])(\d+)['"]`)
)

// npyItemSize reads the element size from the header's descr, e.g. '<f4'.
func npyItemSize(header string) (int64, error) {
	m := npyDescr.FindStringSubmatch(header)
	if m == nil {
		return 0, fmt.Errorf("the .npy header's dtype is not a plain number type (structured or object arrays are not supported): %q", strings.TrimSpace(header))
	}
	n, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil || n <= 0 || n > 64 {
		return 0, fmt.Errorf("the .npy header has a bad dtype %q", m[2]+m[3])
	}
	if m[2] == "U" {
		n *= 4 // NumPy's unicode strings count characters of 4 bytes
	}
	return n, nil
}

// checkNPYFile runs checkNPY on a file's first bytes.
func checkNPYFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 1<<16+16) // a v1 header is at most 64 KiB; larger v2 ones are very rare
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	head = head[:n]
	if n >= 12 && head[6] >= 2 {
		if need := 12 + int64(binary.LittleEndian.Uint32(head[8:12])); need > int64(n) && need <= fi.Size() && need < 1<<30 {
			more := make([]byte, need-int64(n))
			if _, err := io.ReadFull(f, more); err != nil {
				return err
			}
			head = append(head, more...)
		}
	}
	return checkNPY(head, fi.Size())
}
