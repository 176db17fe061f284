// Package termesc writes, as the six characters \uXXXX, the characters
// that a terminal acts on instead of printing and that JSON encoders
// (encoding/json, zap) write raw: DEL, the C1 controls, the line and
// paragraph separators and the bidirectional embeddings, overrides and
// isolates. VTE, GNU screen and Mosh run a UTF-8 U+009B as CSI and U+0085
// as a new line, so a record or log line read with tail could erase the
// lines before it or show a fake one; U+2028 and U+2029 end a line for
// Python's str.splitlines, editors and log viewers (zap writes them raw);
// U+202A-U+202E and U+2066-U+2069 reorder what is shown. Inside a
// JSON string the result is a JSON escape of the same character, so the
// text decodes to what it said. The audit trail and the logging extension
// use it; approval.Visible is the wider rule for what a person approves.
package termesc

import "unicode/utf8"

// Index returns the index in s of the first character Escape rewrites, or
// -1.
func Index[T ~string | ~[]byte](s T) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0x7f:
			return i
		case 0xc2: // U+0080-U+009F
			if i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
				return i
			}
		case 0xe2: // U+2028-U+202E, U+2066-U+2069
			if i+2 < len(s) && ((s[i+1] == 0x80 && s[i+2] >= 0xa8 && s[i+2] <= 0xae) || (s[i+1] == 0x81 && s[i+2] >= 0xa6 && s[i+2] <= 0xa9)) {
				return i
			}
		}
	}
	return -1
}

// Escape returns s with each character Index finds written as \uXXXX; s
// itself when there is none.
func Escape(s string) string {
	if Index(s) < 0 {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s))
}

// EscapeBytes is Escape of b; b itself when there is nothing to escape.
func EscapeBytes(b []byte) []byte {
	if Index(b) < 0 {
		return b
	}
	return appendEscaped(make([]byte, 0, len(b)+16), b)
}

func appendEscaped[T ~string | ~[]byte](out []byte, s T) []byte {
	const hex = "0123456789abcdef"
	for i := Index(s); i >= 0; i = Index(s) {
		var b [utf8.UTFMax]byte
		r, n := utf8.DecodeRune(b[:copy(b[:], s[i:])])
		out = append(out, s[:i]...)
		out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		s = s[i+n:]
	}
	return append(out, s...)
}
