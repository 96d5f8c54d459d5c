package sample

import "strings"

// StopMatcher finds stop strings in streamed text that arrives in pieces
// (one token's text at a time), where a stop string may span several
// tokens. It holds back the text that could still be the start of a stop
// string, so what it lets through never contains a stop string nor any
// part of one. Host side; not safe for concurrent use.
//
//	m := sample.NewStopMatcher([]string{"\nUser:"})
//	for each token: out, stop := m.Push(tok.Text); print(out); if stop { break }
//	at the end (no stop): print(m.Flush())
type StopMatcher struct {
	stops   []string
	held    string
	stopped bool
	matched string
}

// NewStopMatcher returns a matcher for stops (empty strings are ignored).
func NewStopMatcher(stops []string) *StopMatcher {
	m := &StopMatcher{}
	for _, s := range stops {
		if s != "" {
			m.stops = append(m.stops, s)
		}
	}
	return m
}

// Push adds the next piece of text. It returns the text that is now safe
// to show and whether a stop string was found; then out is the text up to
// the stop string (which is dropped, as is everything after it), and every
// later Push returns "", true.
func (m *StopMatcher) Push(text string) (out string, stop bool) {
	if m.stopped {
		return "", true
	}
	buf := m.held + text
	if at, s := m.first(buf); at >= 0 {
		m.stopped, m.matched, m.held = true, s, ""
		return buf[:at], true
	}
	// Hold the longest suffix of buf that is a proper prefix of a stop
	// string. It begins at a UTF-8 character boundary: a stop string's
	// first byte is a leading byte.
	keep := 0
	for _, s := range m.stops {
		for n := min(len(s)-1, len(buf)); n > keep; n-- {
			if strings.HasSuffix(buf, s[:n]) {
				keep = n
				break
			}
		}
	}
	m.held = buf[len(buf)-keep:]
	return buf[:len(buf)-keep], false
}

// first returns the earliest position of any stop string in buf (-1 if
// none) and the one found there (the longest, when several start there).
func (m *StopMatcher) first(buf string) (int, string) {
	at, which := -1, ""
	for _, s := range m.stops {
		i := strings.Index(buf, s)
		if i >= 0 && (at < 0 || i < at || i == at && len(s) > len(which)) {
			at, which = i, s
		}
	}
	return at, which
}

// Flush returns the text held back, at the end of a generation that no
// stop string ended (empty after a stop).
func (m *StopMatcher) Flush() string {
	h := m.held
	m.held = ""
	return h
}

// Stopped reports whether a stop string was found, and which.
func (m *StopMatcher) Stopped() (bool, string) { return m.stopped, m.matched }

// Held is the text held back so far (a prefix of some stop string).
func (m *StopMatcher) Held() string { return m.held }
