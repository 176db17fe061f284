// Package canonjson writes JSON in the canonical form of RFC 8785 (JSON
// Canonicalization Scheme): object members sorted by the UTF-16 code units
// of their names, no insignificant white space, strings escaped minimally,
// and numbers written as ECMAScript writes an IEEE-754 double (1, 1.0 and
// 1e0 are all "1"; 1e21 is "1e+21"). Two JSON texts that mean the same have
// the same canonical bytes, so their hashes can bind a decision or key a
// cache.
//
// RFC 8785 is defined for I-JSON, whose numbers are doubles. An integer
// beyond 2^53 is not exactly a double; rather than let two different ones
// merge, it is written with all its digits (its sign kept, leading zeros
// dropped). That is the only departure, and only for input I-JSON does not
// allow.
package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Canonical returns the canonical form of the JSON text raw. It fails on
// text that is not one JSON value, and on numbers that are not finite.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	b := make([]byte, 0, len(raw))
	return appendValue(b, v)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.Number:
		return appendNumber(b, string(x))
	case string:
		return appendString(b, x), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("unexpected JSON value %T", v)
}

// compareUTF16 orders strings by their UTF-16 code units (RFC 8785 3.2.3).
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// appendString writes s as RFC 8785 (ECMAScript JSON.stringify) does:
// quote, backslash and control characters escaped (\b \t \n \f \r, the
// rest as \u00xx), everything else as its UTF-8 bytes.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// maxExact is 2^53: every integer up to it is exactly a double.
const maxExact = 1 << 53

// appendNumber writes the JSON number literal s as ECMAScript's
// Number.prototype.toString writes the double it denotes.
func appendNumber(b []byte, s string) ([]byte, error) {
	if isInteger(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err != nil || n > maxExact || n < -maxExact {
			// Not exactly a double: keep every digit (see the package doc).
			neg := strings.HasPrefix(s, "-")
			d := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
			if d == "" {
				return append(b, '0'), nil
			}
			if neg {
				b = append(b, '-')
			}
			return append(b, d...), nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("number %s is not a finite double", s)
	}
	return appendES6(b, f), nil
}

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendES6 writes f as ECMAScript's Number.prototype.toString does
// (ECMA-262 7.1.12.1), from the shortest digits that round-trip.
func appendES6(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0') // -0 too
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	k, n := len(digits), exp+1 // f = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}
