package oracle

import (
	"os"
	"strings"
	"testing"
)

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }

func TestSplitCells(t *testing.T) {
	src := "// a header, no Go\n// %%\nx := 1\n// %% [markdown]\n// only a comment\n// %%\nfunc f() {\n}\nf()\n"
	got := SplitCells(src)
	want := []string{"x := 1\n", "func f() {\n}\nf()\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("SplitCells = %q, want %q", got, want)
	}
}

func TestSplitOutput(t *testing.T) {
	out := Marker(0) + "\n" + Marker(1) + "\nhello\n" + Marker(2) + "\n3\n"
	cells, pre := SplitOutput(out, 3)
	if pre != "" || cells[0] != "" || cells[1] != "hello\n" || cells[2] != "3\n" {
		t.Fatalf("SplitOutput = %q, pre %q", cells, pre)
	}
	if _, pre := SplitOutput("boot\n"+Marker(0)+"\n", 1); pre != "boot\n" {
		t.Fatalf("text before the first marker: pre = %q", pre)
	}
}

// The units of a cell: the semicolons of an if/for/switch header and
// those inside brackets do not cut it.
func TestUnits(t *testing.T) {
	cell := "a := 1; b := 2\nif x := 3; x > 0 {\n\tf(x)\n}\nfor i := 0; i < 2; i++ {\n}\nm := map[string]int{\"a\": 1,\n}\n"
	got, err := units(cell)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a := 1", "b := 2", "if x := 3; x > 0 {\n\tf(x)\n}", "for i := 0; i < 2; i++ {\n}", "m := map[string]int{\"a\": 1,\n}"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("units = %q\nwant    %q", got, want)
	}
}

func TestDerive(t *testing.T) {
	src, err := Derive([]string{
		"import \"strings\"\n",
		"v, err := strconv.Atoi(\"1\")\n",
		"w, err := strconv.Atoi(\"2\")\n", // err exists: assigned through a fresh variable
		"type T struct{ A int }\nfunc (t T) Get() int { return t.A }\n",
		"fmt.Println(v)\nv + w\n", // a print call is a statement; the final expression is shown
		"{\n\tv := 5\n\t_ = v\n}\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\t\"strings\"\n",
		"var v, err = strconv.Atoi(\"1\")\n",
		"var w, emilyOracleTmp1 = strconv.Atoi(\"2\")\nvar _ = emilyOracleRun(func() { err = emilyOracleTmp1 })\n",
		"type T struct{ A int }\n\nfunc (t T) Get() int { return t.A }\n",
		"var _ = emilyOracleRun(func() {\n\tfmt.Println(v)\n})\nvar _ = emilyOracleRun(func() { emilyOracleShow(v + w) })\n",
		"var _ = emilyOracleRun(func() {\n\t{\n\t\tv := 5\n\t\t_ = v\n\t}\n})\n",
		"fmt.Println(\"@@@ cell 5 @@@\")",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the derived program lacks %q:\n%s", want, src)
		}
	}
}

func TestDeriveRefusesRedefinitions(t *testing.T) {
	for _, cells := range [][]string{
		{"func f() int { return 1 }\n", "func f() int { return 2 }\n"},
		{"x := 1\n", "x := \"s\"\n"},
		{"type T int\n", "type T string\n"},
	} {
		if _, err := Derive(cells); err == nil || !strings.Contains(err.Error(), "by hand") {
			t.Errorf("Derive(%q): err = %v, want a redefinition error", cells, err)
		}
	}
}

func TestFixVoidShows(t *testing.T) {
	src := "a\nvar _ = emilyOracleRun(func() { emilyOracleShow(wg.Wait()) })\nb\n"
	errs := "./main.go:2:49: wg.Wait() (no value) used as value\n"
	got, ok := FixVoidShows(src, errs)
	if !ok || !strings.Contains(got, "func() { (wg.Wait()) }") {
		t.Fatalf("FixVoidShows = %q, %v", got, ok)
	}
	if _, ok := FixVoidShows(src, "./main.go:2:1: undefined: x\n"); ok {
		t.Fatal("FixVoidShows fixed an error it does not know")
	}
}

func TestLoadKnownRejectsBadLines(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"file a.cells\n", "file a.cells:\n", "file a.cells: x\nfile a.cells: y\n"} {
		p := dir + "/k.txt"
		if err := writeFile(p, bad); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKnown(p); err == nil {
			t.Errorf("LoadKnown accepted %q", bad)
		}
	}
}
