package kernel

import "testing"

func TestIsComplete(t *testing.T) {
	tests := []struct {
		code, status, indent string
	}{
		{"", "complete", ""},
		{"   \n\t", "complete", ""},
		{"// just a comment", "complete", ""},
		{"x := 1", "complete", ""},
		{"fmt.Println(\"hi\")\n", "complete", ""},
		{"x := 1 // trailing comment", "complete", ""},
		{"x++", "complete", ""},
		{"return", "complete", ""},
		{"func f() {\n\treturn\n}", "complete", ""},
		{"s := `raw\nstring`", "complete", ""},
		{"x := 1; y := 2;", "complete", ""},
		{"/* closed */ x", "complete", ""},
		{"func f() {", "incomplete", "    "},
		{"for i := 0; i < 3; i++ {\n\tif i > 1 {", "incomplete", "        "},
		{"fmt.Println(", "incomplete", "    "},
		{"a := []int{1, 2,\n", "incomplete", "    "},
		{"m[", "incomplete", "    "},
		{"x := f(func() {", "incomplete", "        "},
		{"s := `unterminated\nraw", "incomplete", ""},
		{"s := `", "incomplete", ""},
		{"x := 1 /* open comment", "incomplete", ""},
		{"x := 1 +", "incomplete", ""},
		{"x :=", "incomplete", ""},
		{"a, b := 1,", "incomplete", ""},
		{"fmt.", "incomplete", ""},
		{"if x {\n} else", "incomplete", ""},
		{"}", "invalid", ""},
		{"f(]", "invalid", ""},
		{"x := (1))", "invalid", ""},
		{"s := \"unterminated", "invalid", ""},
		{"x := 'ab'", "invalid", ""},
		{"x := 1 @ 2", "invalid", ""},
	}
	for _, tt := range tests {
		status, indent := isComplete(tt.code)
		if status != tt.status || indent != tt.indent {
			t.Errorf("isComplete(%q) = %q, %q; want %q, %q", tt.code, status, indent, tt.status, tt.indent)
		}
	}
}
