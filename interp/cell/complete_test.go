package cell

import "testing"

func TestCheckComplete(t *testing.T) {
	tests := []struct {
		code, status, indent string
	}{
		{"", Complete, ""},
		{"   \n\t", Complete, ""},
		{"// just a comment", Complete, ""},
		{"x := 1", Complete, ""},
		{"fmt.Println(\"hi\")\n", Complete, ""},
		{"x := 1 // trailing comment", Complete, ""},
		{"x++", Complete, ""},
		{"return", Complete, ""},
		{"6 * 7", Complete, ""},
		{"func f() {\n\treturn\n}", Complete, ""},
		{"func f() int { return 1 }", Complete, ""},
		{"func (t T) M() {}\nx := 1\nimport \"os\"\ntype T int", Complete, ""},
		{"package main\nfunc main() {}", Complete, ""},
		{"s := `raw\nstring`", Complete, ""},
		{"x := 1; y := 2;", Complete, ""},
		{"/* closed */ x", Complete, ""},
		{"%jit f", Complete, ""},
		{"%config native=false\nx := 1", Complete, ""},
		{"%%time\nfor i := 0; i < 3; i++ {\n}", Complete, ""},
		{"func f() {", Incomplete, "\t"},
		{"func f() int {", Incomplete, "\t"},
		{"%help\nfunc f() {", Incomplete, "\t"},
		{"for i := 0; i < 3; i++ {\n\tif i > 1 {", Incomplete, "\t\t"},
		{"fmt.Println(", Incomplete, "\t"},
		{"x := emily.Add(a,", Incomplete, "\t"},
		{"a := []int{1, 2,\n", Incomplete, "\t"},
		{"m[", Incomplete, "\t"},
		{"x := f(func() {", Incomplete, "\t\t"},
		{"func (t T) M() {", Incomplete, "\t"},
		{"type T struct {", Incomplete, "\t"},
		{"import (", Incomplete, "\t"},
		{"s := `unterminated\nraw", Incomplete, ""},
		{"s := `", Incomplete, ""},
		{"x := 1 /* open comment", Incomplete, ""},
		{"x := 1 +", Incomplete, "\t"},
		{"x :=", Incomplete, "\t"},
		{"a, b := 1,", Incomplete, "\t"},
		{"fmt.", Incomplete, "\t"},
		{"if x {\n} else", Incomplete, "\t"},
		{"func ( {", Invalid, ""},
		{"x := ) + `", Invalid, ""},
		{"}", Invalid, ""},
		{"f(]", Invalid, ""},
		{"x := (1))", Invalid, ""},
		{"s := \"unterminated", Invalid, ""},
		{"x := 'ab'", Invalid, ""},
		{"x := 1 @ 2", Invalid, ""},
		{"x := := 1\nfunc f() {", Invalid, ""},
		{"if x {\n\ty := := 2", Invalid, ""},
		{"for for {", Invalid, ""},
		{"x := 1 1 (", Invalid, ""},
	}
	for _, tt := range tests {
		status, indent := CheckComplete(tt.code)
		if status != tt.status || indent != tt.indent {
			t.Errorf("Check(%q) = %q, %q; want %q, %q", tt.code, status, indent, tt.status, tt.indent)
		}
	}
}
