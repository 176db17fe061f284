package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// UniqueKeys returns a *DecodeError when an object in data (valid JSON)
// names one key twice, keys compared as encoding/json compares them (after
// unescaping). Readers disagree on which of the two counts: encoding/json
// takes the last, other parsers the first, and a person reading the
// arguments may see either; refusing them means every reader sees the same
// call.
func UniqueKeys(data []byte) error {
	var stack [][]string // the keys of each open object; nil for an array
	var isObj []bool
	wantKey := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{':
			stack, isObj, wantKey = append(stack, nil), append(isObj, true), true
		case '[':
			stack, isObj, wantKey = append(stack, nil), append(isObj, false), false
		case '}', ']':
			if len(stack) > 0 {
				stack, isObj = stack[:len(stack)-1], isObj[:len(isObj)-1]
			}
		case ',':
			wantKey = len(isObj) > 0 && isObj[len(isObj)-1]
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if !wantKey || len(stack) == 0 || i >= len(data) {
				continue
			}
			wantKey = false
			key := keyText(data[start : i+1])
			top := &stack[len(stack)-1]
			if slices.Contains(*top, key) {
				return &DecodeError{Msg: fmt.Sprintf("arguments name the key %q twice in one object: send each key once", key)}
			}
			*top = append(*top, key)
		}
	}
	return nil
}

// keyText is a quoted JSON key as encoding/json reads it: escapes decoded,
// invalid UTF-8 replaced by U+FFFD.
func keyText(quoted []byte) string {
	raw := quoted[1 : len(quoted)-1]
	if !slices.Contains(raw, '\\') && utf8.Valid(raw) {
		return string(raw)
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return string(raw)
	}
	return s
}
