package policy

import (
	"strings"
	"unicode/utf8"
)

// noArgs reports whether args is no arguments at all (nothing, white
// space, null), which a tool reads as {}: its declared path arguments are
// left out, and judged so.
func noArgs(args []byte) bool {
	s := strings.TrimSpace(string(args))
	return s == "" || s == "null"
}

// plainString returns the content of a JSON string without escapes, whose
// bytes are what json.Unmarshal would return (valid UTF-8).
func plainString(v []byte) (string, bool) {
	if !decodesToItself(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// decodesToItself reports whether v is a JSON string that json.Unmarshal
// decodes to exactly its bytes between the quotes: no escapes, no quote or
// control character inside, valid UTF-8.
func decodesToItself(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(v)
}
