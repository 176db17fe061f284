package cache

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
)

// CanonicalJSON re-encodes a JSON value so that equal values have equal
// bytes: RFC 8785, the same canonical form the approval binding hashes
// (approval.Canonical): object keys sorted, no insignificant white space,
// numbers as the doubles they denote (1, 1.0, 1e0 and 10e-1 are all 1; -0
// is 0), and numbers beyond 2^53 that are not exactly a double's shortest
// form with every digit, however they are written (9007199254740993 and
// 9007199254740993.0 are one key, 9007199254740992 another), so a call is
// never served the result of a call with a different big number.
//
// Text that is not UTF-8, or that escapes a surrogate without its pair
// ("\ud800"), is refused, as I-JSON (which RFC 8785 canonicalises) refuses
// it: decoded, every such string becomes U+FFFD, so they would all share a
// form, while a tool given the arguments as they came (an MCP or HTTP tool
// forwards them) tells them apart. The cache runs such calls uncached.
func CanonicalJSON(raw []byte) ([]byte, error) {
	if err := checkText(raw); err != nil {
		return nil, fmt.Errorf("cache: arguments: %w", err)
	}
	c, err := canonjson.Canonical(raw)
	if err != nil {
		return nil, fmt.Errorf("cache: arguments: %w", err)
	}
	return c, nil
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
