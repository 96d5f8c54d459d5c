package data_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/data"
)

func epoch(b *data.Batches) (rows [][]int32, sizes []int) {
	for b.Next() {
		x, y := b.Batch()[0], b.Batch()[1]
		xs, ys := x.ToInt32s(), y.ToInt32s()
		for i := range ys {
			if xs[2*i] != 2*ys[i] || xs[2*i+1] != 2*ys[i]+1 {
				panic("inputs and labels out of step")
			}
		}
		rows = append(rows, ys)
		sizes = append(sizes, len(ys))
	}
	return rows, sizes
}

func TestBatches(t *testing.T) {
	x := emily.Reshape(emily.Arange(20), 10, 2)
	y := emily.Arange(10)
	b := data.NewBatches(4, x, y)
	rows, sizes := epoch(b)
	if !slices.Equal(sizes, []int{4, 4, 2}) || b.Len() != 3 || !slices.Equal(rows[2], []int32{8, 9}) {
		t.Errorf("in order, keeping the last: sizes %v rows %v", sizes, rows)
	}
	b = data.NewBatches(4, x, y)
	b.DropLast = true
	if _, sizes := epoch(b); !slices.Equal(sizes, []int{4, 4}) || b.Len() != 2 {
		t.Errorf("dropping the last: sizes %v", sizes)
	}

	shuffled := func() [][]int32 {
		b := data.NewBatches(3, x, y)
		b.Shuffle(emily.Key(5))
		var all [][]int32
		for range 2 {
			rows, _ := epoch(b)
			var flat []int32
			for _, r := range rows {
				flat = append(flat, r...)
			}
			all = append(all, flat)
			b.Reset()
		}
		return all
	}
	a, a2 := shuffled(), shuffled()
	for e := range a {
		got := append([]int32(nil), a[e]...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		if !slices.Equal(got, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
			t.Errorf("epoch %d does not visit each row once: %v", e, a[e])
		}
		if !slices.Equal(a[e], a2[e]) {
			t.Errorf("epoch %d differs between two runs with one key", e)
		}
	}
	if slices.Equal(a[0], a[1]) || slices.Equal(a[0], []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("epochs not reshuffled: %v", a)
	}
	if err := emily.Try(func() { data.NewBatches(2, x, emily.Arange(9)) }); err == nil || !strings.Contains(err.Error(), "9 rows") {
		t.Errorf("misaligned: %v", err)
	}
}

// Shard gives each rank its contiguous part of every global batch, so
// the ranks' parts, in rank order, are the unsharded batches.
func TestShardSplitsEachGlobalBatch(t *testing.T) {
	x := emily.ArangeOf(emily.Int32, 12)
	whole := data.NewBatches(4, x)
	whole.Shuffle(emily.Key(2))
	parts := []*data.Batches{data.NewBatches(4, x).Shard(0, 2), data.NewBatches(4, x).Shard(1, 2)}
	for _, p := range parts {
		p.Shuffle(emily.Key(2))
	}
	for whole.Next() {
		var got []int
		for _, p := range parts {
			if !p.Next() {
				t.Fatal("a shard ended early")
			}
			if n := p.Batch()[0].Shape()[0]; n != 2 {
				t.Fatalf("a rank's part has %d rows, want 2", n)
			}
			got = append(got, p.Batch()[0].ToInts()...)
		}
		if want := whole.Batch()[0].ToInts(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("ranks' parts %v, want the global batch %v", got, want)
		}
	}
	if parts[0].Next() {
		t.Fatal("a shard has more batches than the whole")
	}
	for _, bad := range [][2]int{{0, 3}, {2, 2}, {-1, 2}} {
		err := emily.Try(func() { data.NewBatches(4, x).Shard(bad[0], bad[1]) })
		if err == nil || !strings.Contains(err.Error(), "data.Shard") {
			t.Errorf("Shard(%d, %d): %v", bad[0], bad[1], err)
		}
	}
}
