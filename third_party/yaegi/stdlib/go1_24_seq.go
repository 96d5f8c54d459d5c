//go:build go1.24

package stdlib

import (
	"bytes"
	"reflect"
	"strings"
)

// emily patch 53: the iterator functions Go 1.24 added to strings and
// bytes (the symbol tables were extracted with Go 1.22). Their results
// are iter.Seq values, which interpreted code ranges over (patch 41).
func init() {
	for name, v := range map[string]reflect.Value{
		"Lines":         reflect.ValueOf(strings.Lines),
		"SplitSeq":      reflect.ValueOf(strings.SplitSeq),
		"SplitAfterSeq": reflect.ValueOf(strings.SplitAfterSeq),
		"FieldsSeq":     reflect.ValueOf(strings.FieldsSeq),
		"FieldsFuncSeq": reflect.ValueOf(strings.FieldsFuncSeq),
	} {
		Symbols["strings/strings"][name] = v
	}
	for name, v := range map[string]reflect.Value{
		"Lines":         reflect.ValueOf(bytes.Lines),
		"SplitSeq":      reflect.ValueOf(bytes.SplitSeq),
		"SplitAfterSeq": reflect.ValueOf(bytes.SplitAfterSeq),
		"FieldsSeq":     reflect.ValueOf(bytes.FieldsSeq),
		"FieldsFuncSeq": reflect.ValueOf(bytes.FieldsFuncSeq),
	} {
		Symbols["bytes/bytes"][name] = v
	}
}
