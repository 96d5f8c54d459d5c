package opcheck

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/emily-go/emily"
)

// npyDescr is NumPy's name for each dtype; bfloat16 has none and is
// written widened to float32 (exact), its true dtype kept in the manifest.
var npyDescr = map[emily.DType]string{
	emily.Bool: "|b1", emily.Uint8: "|u1", emily.Uint16: "<u2", emily.Uint32: "<u4", emily.Uint64: "<u8",
	emily.Int8: "|i1", emily.Int16: "<i2", emily.Int32: "<i4", emily.Int64: "<i8",
	emily.Float16: "<f2", emily.Float32: "<f4", emily.Float64: "<f8", emily.Complex64: "<c8",
	emily.BFloat16: "<f4",
}

// writeNPY writes t as a version 1.0 .npy file. The test harness has its
// own small writer so that the op checks do not depend on the library's
// save path they might be checking.
func writeNPY(path string, t *emily.Tensor) error {
	data := t.Bytes()
	if t.DType() == emily.BFloat16 {
		wide := make([]byte, 2*len(data))
		for i := 0; i < len(data)/2; i++ {
			binary.LittleEndian.PutUint32(wide[4*i:], uint32(binary.LittleEndian.Uint16(data[2*i:]))<<16)
		}
		data = wide
	}
	dims := make([]string, len(t.Shape()))
	for i, d := range t.Shape() {
		dims[i] = fmt.Sprint(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", npyDescr[t.DType()], shape)
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(header)))
	out = append(out, header...)
	out = append(out, data...)
	return os.WriteFile(path, out, 0o644)
}
