package policy

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// field is one top-level member of a JSON object: its key as written
// (unescaped when it had escapes) and its raw value.
type field struct {
	key []byte
	val []byte
}

// topFields lists the members of the JSON object in args, appending to buf,
// without building a map: the policy looks at a few named arguments per
// call. It reports false when args is not a well-formed object.
func topFields(args []byte, buf []field) ([]field, bool) {
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return nil, false
	}
	i = skipSpace(args, i+1)
	if i < len(args) && args[i] == '}' {
		return buf, skipSpace(args, i+1) == len(args)
	}
	for {
		if i >= len(args) || args[i] != '"' {
			return nil, false
		}
		end, escaped, ok := stringEnd(args, i)
		if !ok {
			return nil, false
		}
		key := args[i+1 : end-1]
		if escaped || !utf8.Valid(key) {
			var s string
			if json.Unmarshal(args[i:end], &s) != nil {
				return nil, false
			}
			key = []byte(s)
		}
		i = skipSpace(args, end)
		if i >= len(args) || args[i] != ':' {
			return nil, false
		}
		i = skipSpace(args, i+1)
		vend, ok := valueEnd(args, i)
		if !ok {
			return nil, false
		}
		buf = append(buf, field{key: key, val: args[i:vend]})
		i = skipSpace(args, vend)
		if i >= len(args) {
			return nil, false
		}
		switch args[i] {
		case ',':
			i = skipSpace(args, i+1)
		case '}':
			return buf, skipSpace(args, i+1) == len(args)
		default:
			return nil, false
		}
	}
}

// noArgs reports whether args is no arguments at all (nothing, white
// space, null), which a tool reads as {}: its declared path arguments are
// left out, and judged so.
func noArgs(args []byte) bool {
	s := strings.TrimSpace(string(args))
	return s == "" || s == "null"
}

// sameKey reports whether a decoder may take the member key for the
// argument name: encoding/json matches a struct field's name without
// regard to case (as strings.EqualFold: "Path", "PATH", and "ſrc" with
// U+017F for "src"), so the rules judge every such member.
func sameKey(key []byte, name string) bool {
	return string(key) == name || strings.EqualFold(string(key), name)
}

// lastField returns the value of the last member named key (the one
// json.Unmarshal keeps).
func lastField(fields []field, key string) ([]byte, bool) {
	for i := len(fields) - 1; i >= 0; i-- {
		if string(fields[i].key) == key {
			return fields[i].val, true
		}
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index after the string starting at b[i] == '"'.
func stringEnd(b []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped, true
		}
	}
	return 0, false, false
}

// valueEnd returns the index after the value starting at b[i]. It checks
// the nesting and the strings, enough to find the value's end; the values
// the policy reads are decoded (and so checked) by json.Unmarshal.
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		end, _, ok := stringEnd(b, i)
		return end, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _, ok := stringEnd(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
loop:
	for ; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			break loop
		}
	}
	return j, j > i
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
