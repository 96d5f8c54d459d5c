package kernel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// History: what history_request reads (consoles' Up arrow and %history,
// JupyterLab's console). Every cell run with store_history is one entry,
// numbered as IPython numbers them: a session per kernel start, a line per
// execution count. Entries are appended, one JSON object a line, to a
// file in the user's data dir, so a restarted kernel (a new session)
// still finds the earlier ones.

// historyKeep is how many entries a kernel loads; past twice that the
// file is rewritten with the newest historyKeep at start-up.
const historyKeep = 10000

// historyInlineMax bounds the output a record holds. A larger one (a cell
// whose value is 70 MB) goes to a file of its own beside the history, and
// the record names it: the history file stays a list of small lines, and
// the kernel holds only the names in memory.
var historyInlineMax = 64 << 10

type historyEntry struct {
	Session int     `json:"session"`
	Line    int     `json:"line"`
	Input   string  `json:"input"`
	Output  *string `json:"output,omitempty"` // text/plain of the execute_result
	// OutputFile names the file in the outputs directory that holds an
	// output larger than historyInlineMax (Output is then nil).
	OutputFile string `json:"output_file,omitempty"`
}

type history struct {
	mu      sync.Mutex
	path    string // "" keeps history in memory only
	session int    // this kernel's session number
	entries []historyEntry
	log     func(format string, args ...any)
}

// DefaultHistoryFile is where the kernel keeps its history:
// $JUPYTER_DATA_DIR/emily/history.jsonl when JUPYTER_DATA_DIR is set,
// else $XDG_DATA_HOME/emily/history.jsonl (~/.local/share by default).
func DefaultHistoryFile() string {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "emily", "history.jsonl")
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "emily", "history.jsonl")
}

// openHistory loads path (creating its directory) and starts a new
// session after the last one in it. A file that cannot be read or
// written costs only persistence: history then lives in memory.
func openHistory(path string, logf func(string, ...any)) *history {
	h := &history{path: path, session: 1, log: logf}
	if path == "" {
		return h
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		h.fail(err)
		return h
	}
	err := h.locked(func(f *os.File) error {
		var all []historyEntry
		// Lines of any length: a file written before outputs were kept
		// apart may hold one of 70 MB (bufio.Scanner stopped there, and
		// the whole history was lost).
		r := bufio.NewReader(f)
		for {
			line, err := r.ReadBytes('\n')
			var e historyEntry
			if len(line) > 0 && json.Unmarshal(line, &e) == nil && e.Session > 0 {
				all = append(all, e)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		for _, e := range all {
			h.session = max(h.session, e.Session+1)
		}
		if len(all) > historyKeep {
			h.entries = append([]historyEntry(nil), all[len(all)-historyKeep:]...)
		} else {
			h.entries = all
		}
		if len(all) > 2*historyKeep {
			if err := rewrite(f, h.entries); err != nil {
				return err
			}
			h.pruneOutputs()
		}
		// Claim the session number now, so a kernel started meanwhile
		// takes the next one.
		return appendEntry(f, historyEntry{Session: h.session, Line: 0})
	})
	if err != nil {
		h.fail(err)
	}
	return h
}

// fail turns persistence off after an error, saying so once.
func (h *history) fail(err error) {
	h.log("history: %v; keeping this session's history in memory only", err)
	h.path = ""
}

// locked runs fn with the history file open and locked against the other
// kernels that share it.
func (h *history) locked(fn func(*os.File) error) error {
	f, err := os.OpenFile(h.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn(f)
}

func appendEntry(f *os.File, e historyEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	return err
}

func rewrite(f *os.File, es []historyEntry) error {
	var buf bytes.Buffer
	for _, e := range es {
		b, _ := json.Marshal(e)
		buf.Write(append(b, '\n'))
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Write(buf.Bytes()) // O_APPEND: writes at the new end, 0
	return err
}

// outputsDir holds the outputs too large for a record:
// history-outputs/ beside history.jsonl.
func outputsDir(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "-outputs"
}

// keepApart writes a large output to its own file and points e at it;
// without a file (memory only, or it cannot be written) the record keeps
// the first historyInlineMax bytes and says how long the output was.
func (h *history) keepApart(e *historyEntry) {
	out := *e.Output
	if h.path != "" {
		name := fmt.Sprintf("%d-%d.txt", e.Session, e.Line)
		dir := outputsDir(h.path)
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), []byte(out), 0o600)
		}
		if err == nil {
			e.Output, e.OutputFile = nil, name
			return
		}
		h.log("history: keeping the %d-byte output of line %d apart: %v; storing its start", len(out), e.Line, err)
	}
	cut := completeUTF8([]byte(out[:historyInlineMax]))
	short := out[:cut] + fmt.Sprintf("\n… (%d bytes in all; history keeps the first %d)", len(out), cut)
	e.Output = &short
}

// pruneOutputs removes the output files no kept entry names.
func (h *history) pruneOutputs() {
	dir := outputsDir(h.path)
	names, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, e := range h.entries {
		keep[e.OutputFile] = true
	}
	for _, n := range names {
		if !keep[n.Name()] {
			os.Remove(filepath.Join(dir, n.Name()))
		}
	}
}

// output returns e's output: the record's, or its file's in the outputs
// directory of the history at path (nil when the file is gone).
func output(path string, e historyEntry) *string {
	if e.OutputFile == "" || path == "" {
		return e.Output
	}
	b, err := os.ReadFile(filepath.Join(outputsDir(path), filepath.Base(e.OutputFile)))
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// add records one executed cell.
func (h *history) add(line int, input string, output *string) {
	e := historyEntry{Session: h.session, Line: line, Input: input, Output: output}
	h.mu.Lock()
	defer h.mu.Unlock()
	if output != nil && len(*output) > historyInlineMax {
		h.keepApart(&e)
	}
	h.entries = append(h.entries, e)
	if len(h.entries) > 2*historyKeep {
		h.entries = append([]historyEntry(nil), h.entries[len(h.entries)-historyKeep:]...)
	}
	if h.path != "" {
		if err := h.locked(func(f *os.File) error { return appendEntry(f, e) }); err != nil {
			h.fail(err)
		}
	}
}

// historyRequest is the content of history_request.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           *int   `json:"stop"`
	N              *int   `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

// query answers a history_request: entries as [session, line, input] or,
// with output, [session, line, [input, output]] (output null when the
// cell showed no value).
func (h *history) query(r historyRequest) ([]any, error) {
	h.mu.Lock()
	var es []historyEntry
	for _, e := range h.entries {
		if e.Line > 0 { // line 0 only claims a session number
			es = append(es, e)
		}
	}
	session, path := h.session, h.path
	h.mu.Unlock()

	switch r.HistAccessType {
	case "tail":
		es = last(es, r.N, 10)
	case "range":
		// As IPython: session 0 is this one, -1 the one before, …; lines
		// start ≤ line < stop, stop omitted (or 0) for "to the end".
		s := r.Session
		if s <= 0 {
			s += session
		}
		var out []historyEntry
		for _, e := range es {
			if e.Session == s && e.Line >= r.Start && (r.Stop == nil || *r.Stop <= 0 || e.Line < *r.Stop) {
				out = append(out, e)
			}
		}
		es = out
	case "search":
		re, err := globRegexp(r.Pattern)
		if err != nil {
			return nil, err
		}
		var out []historyEntry
		for _, e := range es {
			if re.MatchString(e.Input) {
				out = append(out, e)
			}
		}
		if r.Unique {
			// The newest of each input, in history order.
			seen := map[string]bool{}
			var u []historyEntry
			for i := len(out) - 1; i >= 0; i-- {
				if !seen[out[i].Input] {
					seen[out[i].Input] = true
					u = append(u, out[i])
				}
			}
			for i, j := 0, len(u)-1; i < j; i, j = i+1, j-1 {
				u[i], u[j] = u[j], u[i]
			}
			out = u
		}
		es = last(out, r.N, -1)
	default:
		return nil, fmt.Errorf("hist_access_type %q: use tail, range or search", r.HistAccessType)
	}
	rows := make([]any, 0, len(es))
	for _, e := range es {
		var item any = e.Input
		if r.Output {
			var out any
			if o := output(path, e); o != nil {
				out = *o
			}
			item = []any{e.Input, out}
		}
		rows = append(rows, []any{e.Session, e.Line, item})
	}
	return rows, nil
}

// last returns the last n entries; n missing means def (-1: all).
func last(es []historyEntry, n *int, def int) []historyEntry {
	k := def
	if n != nil {
		k = *n
	}
	if k < 0 || k >= len(es) {
		return es
	}
	return es[len(es)-k:]
}

// globRegexp compiles a history search pattern as IPython's (SQLite GLOB):
// * any run of characters, ? one, [...] one of a class, [^...] one not in
// it; matched against the whole input, case-sensitively. In a class, a ]
// right after [ or [^ is a member, a-z is a range, and a - at either end
// is itself. An empty pattern matches everything.
func globRegexp(p string) (*regexp.Regexp, error) {
	if p == "" {
		p = "*"
	}
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			class, next, err := globClass(rs, i+1)
			if err != nil {
				return nil, fmt.Errorf("history search pattern %q: %w", p, err)
			}
			b.WriteString(class)
			i = next - 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.Compile(b.String())
}

// globClass translates the class that starts at rs[i] (just after its [)
// into a regexp that matches one character, and returns the index after
// its closing ].
func globClass(rs []rune, i int) (string, int, error) {
	negate := i < len(rs) && rs[i] == '^'
	if negate {
		i++
	}
	var items strings.Builder
	quote := func(r rune) string { return `\x{` + strconv.FormatInt(int64(r), 16) + `}` }
	for first := true; ; first = false {
		if i >= len(rs) {
			return "", 0, errors.New("[ without ]")
		}
		c := rs[i]
		if c == ']' && !first {
			break
		}
		if i+2 < len(rs) && rs[i+1] == '-' && rs[i+2] != ']' {
			// A range lo-hi; SQLite matches nothing for hi < lo.
			if lo, hi := c, rs[i+2]; lo <= hi {
				items.WriteString(quote(lo) + "-" + quote(hi))
			}
			i += 3
			continue
		}
		items.WriteString(quote(c))
		i++
	}
	i++                   // past ]
	if items.Len() == 0 { // only empty ranges
		if negate {
			return ".", i, nil
		}
		return `[^\x00-\x{10FFFF}]`, i, nil
	}
	if negate {
		return "[^" + items.String() + "]", i, nil
	}
	return "[" + items.String() + "]", i, nil
}
