// Package jsonargs reads the members of a tool call's JSON arguments as
// the rules that judge them need them: every member in order, each
// occurrence of a repeated key too (a decoder keeps one of them, which
// the rules cannot know), every member a decoder may take for a name,
// and the values below a path an input schema declares. The governance
// policy and approval rules both read arguments with it.
//
// Members scans without decoding, as the policy reads a few arguments of
// every call; FuzzMembersAsTheDecoder holds it to encoding/json's reading.
package jsonargs

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// Member is one member of a JSON object: its key, unescaped, and its
// value as written.
type Member struct {
	Key string
	Val json.RawMessage
}

// Members appends the members of the JSON object v to buf, in order,
// every occurrence of a repeated key too. It reports false when v is not
// one well-formed JSON object.
func Members(v []byte, buf []Member) ([]Member, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, false
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return buf, skipSpace(v, i+1) == len(v)
	}
	for {
		key, end, ok := readKey(v, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(v, end)
		if i >= len(v) || v[i] != ':' {
			return nil, false
		}
		i = skipSpace(v, i+1)
		vend, ok := valueEnd(v, i)
		if !ok {
			return nil, false
		}
		buf = append(buf, Member{Key: key, Val: v[i:vend]})
		i = skipSpace(v, vend)
		if i >= len(v) {
			return nil, false
		}
		switch v[i] {
		case ',':
			i = skipSpace(v, i+1)
		case '}':
			return buf, skipSpace(v, i+1) == len(v)
		default:
			return nil, false
		}
	}
}

// readKey reads the member key starting at v[i], unescaped (invalid UTF-8
// as encoding/json reads it), and returns the index after it.
func readKey(v []byte, i int) (key string, end int, ok bool) {
	if i >= len(v) || v[i] != '"' {
		return "", 0, false
	}
	end, escaped, ok := stringEnd(v, i)
	if !ok {
		return "", 0, false
	}
	key = string(v[i+1 : end-1])
	if escaped || !utf8.ValidString(key) {
		if json.Unmarshal(v[i:end], &key) != nil {
			return "", 0, false
		}
	}
	return key, end, true
}

// SameKey reports whether a decoder may take the member key for the
// argument name: encoding/json matches a struct field's name without
// regard to case (as strings.EqualFold: "Path", "PATH", and "ſrc" with
// U+017F for "src"), so the rules judge every such member.
func SameKey(key, name string) bool {
	return key == name || strings.EqualFold(key, name)
}

// Values returns the values of every member of ms a decoder may take for
// name (SameKey), in order: encoding/json keeps the last it matched, while
// another decoder may keep the first or only the exact key, so the rules
// judge them all.
func Values(ms []Member, name string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range ms {
		if SameKey(m.Key, name) {
			out = append(out, m.Val)
		}
	}
	return out
}

// Below appends the values found at segs (schema.NestedPaths's steps) in
// the JSON value v: a property under every key a decoder may take for it
// (SameKey), each item of a list (schema.ItemsStep), each value of a map
// (schema.ValuesStep). JSON null and "" are left out: the argument was not
// given.
//
// The text is read once, however deep segs go (read level by level, a
// path 31 levels deep read arguments nested that deep 31 times, and a
// schema may declare 256 paths), each object and list on the way as
// Members reads an object. When one of them is not well formed so, the
// text is read level by level instead: each level as Members, or
// encoding/json for a list, takes it. In valid JSON both find the same
// values (FuzzBelowAsLevelByLevel).
func Below(v []byte, segs []string, out []json.RawMessage) []json.RawMessage {
	if len(segs) > 0 {
		n := len(out)
		end, got, ok := below(v, skipSpace(v, 0), segs, out)
		if ok && skipSpace(v, end) == len(v) {
			return got
		}
		out = out[:n]
	}
	return belowLoose(v, segs, out)
}

// below appends what segs reach in the value at v[i] and returns the
// index after that value, reading each of its bytes once; ok is false
// when an object or a list on the way is not well formed.
func below(v []byte, i int, segs []string, out []json.RawMessage) (end int, _ []json.RawMessage, ok bool) {
	if len(segs) == 0 {
		if end, ok = valueEnd(v, i); ok {
			if s := v[i:end]; string(s) != "null" && string(s) != `""` {
				out = append(out, s)
			}
		}
		return end, out, ok
	}
	open, shut := byte('{'), byte('}')
	if segs[0] == schema.ItemsStep {
		open, shut = '[', ']'
	}
	if i >= len(v) || v[i] != open {
		// Not what segs goes into: nothing below it.
		end, ok = valueEnd(v, i)
		return end, out, ok
	}
	if i = skipSpace(v, i+1); i < len(v) && v[i] == shut {
		return i + 1, out, true
	}
	for {
		into := true // whether segs goes into this item, or member
		if open == '{' {
			key, end, ok := readKey(v, i)
			if i = skipSpace(v, end); !ok || i >= len(v) || v[i] != ':' {
				return 0, out, false
			}
			i = skipSpace(v, i+1)
			into = segs[0] == schema.ValuesStep || SameKey(key, segs[0])
		}
		if into {
			i, out, ok = below(v, i, segs[1:], out)
		} else {
			i, ok = valueEnd(v, i)
		}
		if i = skipSpace(v, i); !ok || i >= len(v) {
			return 0, out, false
		}
		switch v[i] {
		case shut:
			return i + 1, out, true
		case ',':
			i = skipSpace(v, i+1)
		default:
			return 0, out, false
		}
	}
}

// belowLoose is Below level by level.
func belowLoose(v []byte, segs []string, out []json.RawMessage) []json.RawMessage {
	if len(segs) == 0 {
		if s := strings.TrimSpace(string(v)); s != "null" && s != `""` {
			out = append(out, v)
		}
		return out
	}
	if segs[0] == schema.ItemsStep {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				out = Below(it, segs[1:], out)
			}
		}
		return out
	}
	ms, _ := Members(v, nil)
	for _, m := range ms {
		if segs[0] == schema.ValuesStep || SameKey(m.Key, segs[0]) {
			out = Below(m.Val, segs[1:], out)
		}
	}
	return out
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

// stringBytesRead, when a test sets it, counts the bytes of the strings
// stringEnd reads: Below's cost test bounds how often it reads the
// arguments with it, as a count a busy machine's clock cannot blur.
var stringBytesRead *int

// stringEnd returns the index after the string starting at b[i] == '"'.
func stringEnd(b []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			if stringBytesRead != nil {
				*stringBytesRead += j + 1 - i
			}
			return j + 1, escaped, true
		}
	}
	return 0, false, false
}

// valueEnd returns the index after the value starting at b[i]. It checks
// the nesting and the strings, enough to find the value's end; the values
// the rules read are decoded (and so checked) by json.Unmarshal.
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
