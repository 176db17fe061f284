// Package canonjson writes JSON in the canonical form of RFC 8785 (JSON
// Canonicalization Scheme): object members sorted by the UTF-16 code units
// of their names, no insignificant white space, strings escaped minimally,
// and numbers written as ECMAScript writes an IEEE-754 double (1, 1.0 and
// 1e0 are all "1"; 1e21 is "1e+21"; -0 is "0"). Two JSON texts that mean
// the same have the same canonical bytes, so their hashes can bind a
// decision or key a cache.
//
// Numbers. RFC 8785 is defined for I-JSON, whose numbers are doubles: a
// number is written as ECMAScript writes the double nearest it, so -0, 0
// and 0.0 are all "0", and numbers that round to the same double share a
// form (0.1 and 0.10000000000000000001 are both "0.1"). Beyond 2^53,
// where doubles no longer hold every integer, that would merge different
// integers (9007199254740993 and 9007199254740992) that tools reading
// numbers exactly tell apart. So a number beyond 2^53 in magnitude is
// written that way only when it is exactly what ECMAScript writes for its
// double (1e30 is "1e+30", 9007199254740994 is "9007199254740994");
// otherwise it is written exactly, in plain notation: its sign, every digit
// of its integer part, and its fraction, if any, without trailing zeros
// (9007199254740993, 9007199254740993.0 and 9.007199254740993e15 are all
// "9007199254740993"; 9007199254740993.5 is "9007199254740993.5"). The
// form depends only on the number, never on how it is written, and beyond
// 2^53 no two different numbers share one. That is the only departure from
// RFC 8785, and only for numbers I-JSON does not allow. Numbers beyond the
// largest double (1e400, or 1 and 400 zeros) are refused, as RFC 8785
// refuses them.
//
// Text. Bytes that are not UTF-8 and escapes of unpaired surrogates
// ("\ud800") are refused, as RFC 8785 refuses what is not I-JSON: decoded,
// each becomes U+FFFD, so they would share a form with one another and with
// "\ufffd", while a tool given the arguments as they came (an MCP or HTTP
// tool forwards them) tells them apart. The approval binding then refuses
// the call; the cache runs it uncached.
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
	"unicode/utf8"
)

// Canonical returns the canonical form of the JSON text raw. It fails on
// text that is not one JSON value, on numbers that are not finite, and on
// text that is not I-JSON: bytes that are not UTF-8 and escapes of
// unpaired surrogates ("\ud800"), which decode to U+FFFD, so that texts a
// tool given them as they came tells apart would share a form.
func Canonical(raw []byte) ([]byte, error) {
	if err := checkText(raw); err != nil {
		return nil, fmt.Errorf("not I-JSON (RFC 8785 canonicalises only I-JSON): %w", err)
	}
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

// maxExact is 2^53: every integer up to it is exactly a double, and beyond
// it doubles are 2 or more apart.
const maxExact = 1 << 53

// appendNumber writes the JSON number literal s: as ECMAScript's
// Number.prototype.toString writes the double it denotes, unless s is
// beyond 2^53 and not that number exactly (see the package doc). The form
// depends on the number s denotes, never on how s is written.
func appendNumber(b []byte, s string) ([]byte, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("number %s is not a finite double", s)
	}
	es := appendES6(b, f)
	if math.Abs(f) < maxExact {
		return es, nil // |s| <= 2^53 too: rounding keeps order, and 2^53 is a double
	}
	neg, digits, point, ok := decimalOf(s)
	if !ok {
		return nil, fmt.Errorf("number %s is not a finite double", s)
	}
	esNeg, esDigits, esPoint, _ := decimalOf(string(es[len(b):]))
	if esNeg == neg && esDigits == digits && esPoint == point {
		return es, nil // s is exactly what ECMAScript writes
	}
	if point < 16 || point == 16 && digits <= "9007199254740992" {
		return es, nil // |s| <= 2^53 (and above 2^53-1): a double, as below
	}
	// Beyond 2^53 and not a double's shortest form: every digit.
	b = es[:len(b)]
	if neg {
		b = append(b, '-')
	}
	if len(digits) <= point {
		b = append(b, digits...)
		for range point - len(digits) {
			b = append(b, '0')
		}
		return b, nil
	}
	b = append(b, digits[:point]...)
	b = append(b, '.')
	return append(b, digits[point:]...), nil
}

// decimalOf returns the exact value of the JSON number literal s as
// 0.digits × 10^point, digits without leading or trailing zeros ("" for
// zero, point then 0), and whether s could be read. Equal numbers have
// equal results however they are written (1e2, 100 and 100.0 are all
// "1", 3).
func decimalOf(s string) (neg bool, digits string, point int, ok bool) {
	neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return false, "", 0, false
		}
		exp, s = e, s[:i]
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits = strings.TrimLeft(whole+frac, "0")
	point = len(whole) - (len(whole) + len(frac) - len(digits)) + exp
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return neg, "", 0, true
	}
	return neg, digits, point, true
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

// checkText refuses bytes that are not UTF-8 and \u escapes of unpaired
// surrogates. A backslash appears in JSON only inside a string, where it
// begins an escape, so no string state is needed.
func checkText(raw []byte) error {
	if !utf8.Valid(raw) {
		return errors.New("text that is not UTF-8")
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := escaped(raw, i)
		if !ok {
			i++ // another escape (\\, \"): skip its character
			continue
		}
		i += 5
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00: // high: a low must follow
			if lo, ok := escaped(raw, i+1); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
				i += 6
				continue
			}
			return fmt.Errorf("an unpaired surrogate escape (\\u%04x)", r)
		case utf16.IsSurrogate(r):
			return fmt.Errorf("an unpaired surrogate escape (\\u%04x)", r)
		}
	}
	return nil
}

// escaped reads the \uXXXX escape at raw[i], if there is one.
func escaped(raw []byte, i int) (rune, bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range raw[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
