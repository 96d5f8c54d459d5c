package bpe

import "unicode/utf8"

// StreamDecoder turns ids into text one at a time, for streaming: a
// character whose bytes span several tokens (an emoji, CJK in a small
// vocabulary) is held back until its last byte arrives, so no piece of
// output ends inside a character. Bytes that can never become a valid
// character are passed on as they are, so that the pieces joined are
// Decode of all the ids.
type StreamDecoder struct {
	t       *Tokenizer
	pending []byte
}

// NewDecoder starts a stream.
func (t *Tokenizer) NewDecoder() *StreamDecoder { return &StreamDecoder{t: t} }

// Next adds one id and returns the text now complete ("" while a
// character is incomplete).
func (d *StreamDecoder) Next(id int) string {
	d.pending = append(d.pending, d.t.Piece(id)...)
	cut := completePrefix(d.pending)
	out := string(d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return out
}

// Flush returns the bytes still held back (an incomplete character at
// the end of the stream) and empties the decoder.
func (d *StreamDecoder) Flush() string {
	out := string(d.pending)
	d.pending = d.pending[:0]
	return out
}

// Pending reports how many bytes are held back.
func (d *StreamDecoder) Pending() int { return len(d.pending) }

// completePrefix is the length of b without a trailing incomplete UTF-8
// sequence: the start of a character whose remaining bytes may still come.
func completePrefix(b []byte) int {
	// The last character starts at most 3 bytes before the end.
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
