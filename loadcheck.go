package emily

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/emily-go/emily/internal/fileformat"
	"github.com/emily-go/emily/mlxbind"
)

// Loaders validate before they allocate (issue 19): the header is parsed
// in Go (internal/fileformat), every span is checked against the file's
// size, and the bytes the tensors will take are counted against
// EMILY_MEMORY_LIMIT and the memory the machine has free, before any data
// is read. Only then does the shim read the spans (mlxbind.LoadSpans).

// readHead returns the first bytes of f: at least want bytes when the
// file has them, never more than limit.
func readHead(f *os.File, want, limit int64) ([]byte, error) {
	want = max(min(want, limit), 0)
	head := make([]byte, want)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return head[:n], nil
}

// npyHeadSize is how many bytes of a .npy file hold its whole header: the
// preamble says (v1: at most 64 KiB; v2/v3: up to 4 GiB, refused past
// 16 MiB, which no NumPy header comes near).
func npyHeadSize(pre []byte) (int64, error) {
	if len(pre) < 10 {
		return int64(len(pre)), nil
	}
	if pre[6] == 1 {
		return 10 + int64(binary.LittleEndian.Uint16(pre[8:10])), nil
	}
	if len(pre) < 12 {
		return int64(len(pre)), nil
	}
	n := 12 + int64(binary.LittleEndian.Uint32(pre[8:12]))
	if n > 16<<20 {
		return 0, fmt.Errorf("header length: %d bytes; .npy headers are a few hundred bytes (the file is damaged)", n)
	}
	return n, nil
}

// parseNPYFile reads and validates the header of the .npy file at path.
func parseNPYFile(path string) (fileformat.Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileformat.Span{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileformat.Span{}, err
	}
	pre, err := readHead(f, 12, fi.Size())
	if err != nil {
		return fileformat.Span{}, err
	}
	n, err := npyHeadSize(pre)
	if err != nil {
		return fileformat.Span{}, err
	}
	rest, err := readHead(f, n-int64(len(pre)), fi.Size()-int64(len(pre)))
	if err != nil {
		return fileformat.Span{}, err
	}
	return fileformat.ParseNPY(append(pre, rest...), fi.Size())
}

// checkLoadMemory refuses a load whose tensors need more memory than the
// limit allows or the machine has free.
func checkLoadMemory(op, what string, bytes int64) {
	if err := checkMemory(bytes); err != nil {
		panic(&Error{Op: op, Err: fmt.Errorf("%s: the tensors %w", what, err), Hint: memoryHint})
	}
	if avail, ok := memAvailable(); ok && uint64(bytes) > avail {
		panic(&Error{Op: op, Err: fmt.Errorf("%s: the tensors need %s, more than the %s of memory available", what, bytesText(uint64(bytes)), bytesText(avail)),
			Hint: "free memory, or load a smaller file"})
	}
}

// memAvailable reads the kernel's estimate of the memory available to
// new allocations (MemAvailable in /proc/meminfo; Linux only).
func memAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// bindSpans turns validated spans into the shim's form.
func bindSpans(spans []fileformat.Span, base int64) ([]mlxbind.Span, error) {
	out := make([]mlxbind.Span, len(spans))
	for i, sp := range spans {
		dt, err := mlxbind.ParseDType(sp.DType)
		if err != nil {
			return nil, err
		}
		out[i] = mlxbind.Span{Offset: base + sp.Offset, DType: dt, Shape: sp.Shape, Swap: sp.Swap, Fortran: sp.Fortran}
	}
	return out, nil
}

// npzMember is one .npy member of an .npz archive, validated.
type npzMember struct {
	f    *zip.File
	span fileformat.Span
}

// maxNPYHead bounds how much of a member is read to find its header.
const maxNPYHead = 16 << 20

// npzMemberHeader reads and validates the header of one member. The
// member's uncompressed size is what its zip header says; the reader
// below stops there, so a lying zip header cannot make it read more.
func npzMemberHeader(f *zip.File) (fileformat.Span, error) {
	r, err := f.Open()
	if err != nil {
		return fileformat.Span{}, err
	}
	defer r.Close()
	size := int64(f.UncompressedSize64)
	if f.UncompressedSize64 > 1<<62 {
		return fileformat.Span{}, fmt.Errorf("uncompressed size: %d bytes in the zip directory: the archive is damaged", f.UncompressedSize64)
	}
	pre := make([]byte, 12)
	n, _ := io.ReadFull(r, pre)
	pre = pre[:n]
	hn, err := npyHeadSize(pre)
	if err != nil {
		return fileformat.Span{}, err
	}
	if hn > maxNPYHead || hn > size {
		hn = min(size, maxNPYHead)
	}
	rest := make([]byte, max(hn-int64(len(pre)), 0))
	m, _ := io.ReadFull(r, rest)
	return fileformat.ParseNPY(append(pre, rest[:m]...), size)
}
