package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func execCell(t *testing.T, sv *Supervisor, ctx context.Context, code string) (string, string, Result, error) {
	t.Helper()
	var out, errOut syncBuf
	res, err := sv.Execute(ctx, code, &out, &errOut)
	return out.String(), errOut.String(), res, err
}

func TestDistributedRunsCellsOnEveryRank(t *testing.T) {
	sv := newSupervisor(t, 3*time.Second)
	bg := context.Background()
	if _, _, _, err := execCell(t, sv, bg, "import \"fmt\"\nimport \"github.com/emily-go/emily\"\nimport \"github.com/emily-go/emily/distributed\"\nbefore := 41"); err != nil {
		t.Fatal(err)
	}
	out, _, _, err := execCell(t, sv, bg, "%distributed 2")
	if err != nil || !strings.Contains(out, "2 ranks") {
		t.Fatalf("%%distributed 2: %v %q", err, out)
	}
	// The ranks are fresh sessions: they import for themselves.
	code := "import \"fmt\"\nimport \"github.com/emily-go/emily\"\nimport \"github.com/emily-go/emily/distributed\"\n" +
		"g := distributed.World()\nfmt.Println(\"rank\", g.Rank(), \"of\", g.Size())\n" +
		"distributed.AllSum(emily.FromSlice([]float32{float32(g.Rank() + 1)}, 1), g).ToFloat32s()"
	out, errOut, _, err := execCell(t, sv, bg, code)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{"[rank 0] rank 0 of 2\n", "[rank 1] rank 1 of 2\n", "[rank 0] [3]\n", "[rank 1] [3]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// An error names its rank.
	_, _, _, err = execCell(t, sv, bg, "if g.Rank() == 1 { panic(\"one is odd\") }")
	if err == nil || !strings.Contains(err.Error(), "[rank 1] ") || !strings.Contains(err.Error(), "one is odd") {
		t.Errorf("a rank's panic: %v", err)
	}
	// An interrupt reaches every rank, and the ranks go on.
	ctx, cancel := context.WithTimeout(bg, 700*time.Millisecond)
	_, _, _, err = execCell(t, sv, ctx, "import \"time\"\nfor { time.Sleep(10 * time.Millisecond) }")
	cancel()
	var se *Error
	if !errors.As(err, &se) || se.ErrorName() != "Interrupted" {
		t.Fatalf("interrupted cell: %v", err)
	}
	if out, _, _, err := execCell(t, sv, bg, "fmt.Println(g.Size() * 10)"); err != nil || strings.Count(out, "20\n") != 2 {
		t.Fatalf("after the interrupt: %v %q", err, out)
	}
	// %distributed off: the one session, its variables as before.
	out, _, _, err = execCell(t, sv, bg, "%distributed off")
	if err != nil || !strings.Contains(out, "stopped 2 ranks") {
		t.Fatalf("%%distributed off: %v %q", err, out)
	}
	if out, _, _, err := execCell(t, sv, bg, "fmt.Println(before + 1, distributed.World().Size())"); err != nil || out != "42 1\n" {
		t.Fatalf("back in one process: %v %q", err, out)
	}
}

func TestDistributedRankCrashStopsTheOthers(t *testing.T) {
	sv := newSupervisor(t, 3*time.Second)
	bg := context.Background()
	if _, _, _, err := execCell(t, sv, bg, "%distributed 2"); err != nil {
		t.Fatal(err)
	}
	// Unlocking an unlocked mutex is a fatal error of the Go runtime: the
	// process dies, as a crash in MLX would end it.
	code := "import \"sync\"\nimport \"github.com/emily-go/emily\"\nimport \"github.com/emily-go/emily/distributed\"\n" +
		"g := distributed.World()\nx := emily.FromSlice([]float32{1}, 1)\nvar mu sync.Mutex\n" +
		"for i := 0; i < 1000000; i++ {\n\tdistributed.AllSum(x, g).Eval()\n\tif i == 3 && g.Rank() == 1 {\n\t\tmu.Unlock()\n\t}\n}"
	began := time.Now()
	_, _, _, err := execCell(t, sv, bg, code)
	var rc *RankCrashError
	if !errors.As(err, &rc) || rc.Rank != 1 || time.Since(began) > 15*time.Second {
		t.Fatalf("want rank 1's crash at once, got %v after %v", err, time.Since(began))
	}
	if !strings.Contains(err.Error(), "the other ranks were stopped") {
		t.Errorf("the report says what became of the others: %v", err)
	}
	if out, _, _, err := execCell(t, sv, bg, "import \"fmt\"\nfmt.Println(\"one\")"); err != nil || out != "one\n" {
		t.Fatalf("after the crash the cells run in one process: %v %q", err, out)
	}
}

// A cell that fails on one rank while the other waits for it in a
// collective: the waiting rank is stopped, and the report names both.
func TestDistributedFailedRankReleasesTheWaiting(t *testing.T) {
	sv := newSupervisor(t, 2*time.Second)
	bg := context.Background()
	if _, _, _, err := execCell(t, sv, bg, "%distributed 2"); err != nil {
		t.Fatal(err)
	}
	code := "import \"github.com/emily-go/emily\"\nimport \"github.com/emily-go/emily/distributed\"\n" +
		"g := distributed.World()\nif g.Rank() == 1 { panic(\"rank one gives up\") }\n" +
		"distributed.AllSum(emily.FromSlice([]float32{1}, 1), g).Eval()"
	began := time.Now()
	_, _, _, err := execCell(t, sv, bg, code)
	var rc *RankCrashError
	if !errors.As(err, &rc) || rc.Rank != 1 || time.Since(began) > 15*time.Second {
		t.Fatalf("want rank 1's failure and rank 0 stopped, got %v after %v", err, time.Since(began))
	}
	if !strings.Contains(err.Error(), "rank one gives up") || !strings.Contains(err.Error(), "rank 0 could not finish the cell") {
		t.Errorf("the report names the failure and the waiting rank: %v", err)
	}
}
