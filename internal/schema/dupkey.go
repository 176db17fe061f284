package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// UniqueKeys returns a *DecodeError when an object in data (valid JSON;
// other text gets an unspecified answer, never a panic) names one key
// twice, keys compared as encoding/json compares them (after unescaping).
// Readers disagree on which of the two counts: encoding/json takes the
// last, other parsers the first, and a person reading the arguments may
// see either; refusing them means every reader sees the same call. It
// allocates nothing for the usual arguments (small objects, keys without
// escapes).
func UniqueKeys(data []byte) error {
	type frame struct {
		start int                 // where the object's keys start in keys; -1: an array
		big   map[string]struct{} // the keys of an object past smallObject keys
	}
	var keyBuf [16]jsonKey
	var frameBuf [8]frame
	keys := keyBuf[:0]     // the keys of the open objects, innermost last
	frames := frameBuf[:0] // the open objects and arrays, innermost last
	wantKey := false
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			frames, wantKey = append(frames, frame{start: len(keys)}), true
		case '[':
			frames, wantKey = append(frames, frame{start: -1}), false
		case '}', ']':
			if n := len(frames); n > 0 {
				if frames[n-1].start >= 0 {
					keys = keys[:frames[n-1].start]
				}
				frames = frames[:n-1]
			}
			// A value ended: a key comes only after a ',' (in text that
			// is not JSON, a string may follow, and is no key).
			wantKey = false
		case ',':
			wantKey = len(frames) > 0 && frames[len(frames)-1].start >= 0
		case '"':
			start, plain := i, true
			for i++; i < len(data) && data[i] != '"'; i++ {
				switch c := data[i]; {
				case c == '\\':
					plain = false
					i++
				case c >= utf8.RuneSelf:
					plain = false
				}
			}
			if !wantKey || i >= len(data) {
				continue
			}
			wantKey = false
			k, f := jsonKey{raw: data[start+1 : i], plain: plain}, &frames[len(frames)-1]
			if !k.plain {
				// Escapes, or bytes past ASCII (invalid UTF-8 reads as
				// U+FFFD): the key as encoding/json reads it.
				k.decoded = decodeKey(data[start : i+1])
			}
			seen := false
			if f.big != nil {
				_, seen = f.big[k.text()]
			} else {
				seen = slices.ContainsFunc(keys[f.start:], k.equal)
			}
			if seen {
				return &DecodeError{Msg: fmt.Sprintf("arguments name the key %q twice in one object: send each key once", k.text())}
			}
			switch {
			case f.big != nil:
				f.big[k.text()] = struct{}{}
			case len(keys)-f.start < smallObject:
				keys = append(keys, k)
			default: // a large object: a set, not a quadratic search
				f.big = make(map[string]struct{}, 2*smallObject)
				for _, o := range keys[f.start:] {
					f.big[o.text()] = struct{}{}
				}
				f.big[k.text()] = struct{}{}
			}
		}
	}
	return nil
}

// smallObject is how many keys an object has before UniqueKeys keeps them
// in a set.
const smallObject = 64

// jsonKey is an object's key in the text: its bytes between the quotes,
// and, unless they are plain ASCII without escapes, the key as
// encoding/json reads it (escapes decoded, invalid UTF-8 replaced by
// U+FFFD).
type jsonKey struct {
	raw     []byte
	decoded string
	plain   bool
}

// decodeKey reads a quoted key as encoding/json does.
func decodeKey(quoted []byte) string {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return string(quoted[1 : len(quoted)-1])
	}
	return s
}

func (k jsonKey) text() string {
	if k.plain {
		return string(k.raw)
	}
	return k.decoded
}

func (k jsonKey) equal(o jsonKey) bool {
	if k.plain && o.plain {
		return bytes.Equal(k.raw, o.raw)
	}
	return k.text() == o.text()
}
