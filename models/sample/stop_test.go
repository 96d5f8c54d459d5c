package sample_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/emily-go/emily/models/sample"
)

// splits calls f with every way of cutting text into pieces at character
// boundaries (2^(n-1) ways for n characters).
func splits(text string, f func([]string)) {
	var cuts []int
	for i := range text {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	for mask := 0; mask < 1<<len(cuts); mask++ {
		var pieces []string
		last := 0
		for j, c := range cuts {
			if mask&(1<<j) != 0 {
				pieces = append(pieces, text[last:c])
				last = c
			}
		}
		pieces = append(pieces, text[last:])
		f(pieces)
	}
}

// TestStopMatcherEverySplit: however the text is cut into tokens, the
// streamed text is exactly the text before the first stop string, the
// stop is reported at the piece that completes it, and text is held back
// only while it may still begin a stop string.
func TestStopMatcherEverySplit(t *testing.T) {
	for _, tc := range []struct {
		text  string
		stops []string
	}{
		{"Hello\nUser: hi", []string{"\nUser:"}},
		{"abcabd", []string{"abd"}},          // a false start, then the stop
		{"aaab", []string{"aab"}},            // overlapping prefixes
		{"xx</s>yy", []string{"</s>", "x<"}}, // the earliest match wins
		{"stop", []string{"stop"}},           // the whole text
		{"no stop here", []string{"STOP", "ere!"}},
		{"ab", []string{"abc"}},    // ends inside a stop: flushed
		{"日本語です。", []string{"です"}}, // multi-byte characters
		{"q: 1 q: 2", []string{"q: 2", ": 1"}},
		{"abc", []string{"", "c"}}, // an empty stop is ignored
	} {
		first, which := -1, ""
		for _, s := range tc.stops {
			if i := strings.Index(tc.text, s); s != "" && i >= 0 && (first < 0 || i < first) {
				first, which = i, s
			}
		}
		want := tc.text
		if first >= 0 {
			want = tc.text[:first]
		}
		splits(tc.text, func(pieces []string) {
			m := sample.NewStopMatcher(tc.stops)
			var got, acc strings.Builder
			stopped := false
			for i, p := range pieces {
				acc.WriteString(p)
				out, stop := m.Push(p)
				if !utf8.ValidString(out) {
					t.Errorf("%q %q: Push gave invalid UTF-8 %q", tc.text, pieces, out)
				}
				got.WriteString(out)
				if stop {
					if !strings.Contains(acc.String(), which) || strings.Contains(acc.String()[:acc.Len()-len(p)], which) {
						t.Errorf("%q %q: stop reported at piece %d, not where %q completes", tc.text, pieces, i, which)
					}
					stopped = true
					break
				}
				// Not stopped: everything is shown except a held tail that
				// is a proper prefix of a stop string.
				h := m.Held()
				if got.String()+h != acc.String() {
					t.Errorf("%q %q: shown %q + held %q != text so far %q", tc.text, pieces, got.String(), h, acc.String())
				}
				if h != "" && !prefixOfSome(h, tc.stops) {
					t.Errorf("%q %q: holds %q, which begins no stop string", tc.text, pieces, h)
				}
			}
			if !stopped {
				got.WriteString(m.Flush())
			}
			if stopped != (first >= 0) {
				t.Errorf("%q %q: stopped = %v", tc.text, pieces, stopped)
			}
			if got.String() != want {
				t.Errorf("%q %q: streamed %q, want %q", tc.text, pieces, got.String(), want)
			}
			if ok, s := m.Stopped(); ok != stopped || ok && s != which {
				t.Errorf("%q %q: Stopped() = %v %q, want %v %q", tc.text, pieces, ok, s, stopped, which)
			}
		})
	}
}

func prefixOfSome(h string, stops []string) bool {
	for _, s := range stops {
		if len(h) < len(s) && strings.HasPrefix(s, h) {
			return true
		}
	}
	return false
}

func TestStopMatcherAfterStop(t *testing.T) {
	m := sample.NewStopMatcher([]string{"END"})
	if out, stop := m.Push("abEN"); out != "ab" || stop {
		t.Fatalf("Push(abEN) = %q %v", out, stop)
	}
	if out, stop := m.Push("D and more"); out != "" || !stop {
		t.Fatalf("Push(D and more) = %q %v, want \"\" true", out, stop)
	}
	if out, stop := m.Push("later"); out != "" || !stop {
		t.Errorf("Push after the stop = %q %v, want \"\" true", out, stop)
	}
	if f := m.Flush(); f != "" {
		t.Errorf("Flush after the stop = %q", f)
	}
}
