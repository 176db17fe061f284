package redact

import (
	"regexp"
	"strings"
)

// keyEndLine is a private key's PEM END line, or an ssh.com key file's
// (RFC 4716). A whole block, BEGIN to END, is a shape rule's; one that
// is left is a block's tail.
var keyEndLine = regexp.MustCompile(`-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|---- END SSH2 [A-Z0-9 ]*PRIVATE KEY ----`)

// keyEndHints are what an END line holds.
var keyEndHints = []string{"-----END ", "---- END SSH2 "}

// maskKeyTails masks the tail of a private key's PEM block whose BEGIN
// line the text does not hold ("tail -n 4 key.pem", a text cut before
// it): the lines of base64 just above a lone END line (blanks before
// them, as an indented YAML value has), the base64 glued before the
// marker on its line, and the END line itself. An END line with no
// base64 above it (a blank line between, or prose) stays. Each line is
// looked at once: the walk up from an END line stops at the previous
// one's end.
func maskKeyTails(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range keyEndLine.FindAllStringIndex(s, -1) {
		start := m[0]
		// Base64 glued before the marker on its line.
		for start > last && isBase64Pad(s[start-1]) {
			start--
		}
		if start == m[0] {
			// The marker begins its line (after blanks): the lines above.
			ls := start
			for ls > last && (s[ls-1] == ' ' || s[ls-1] == '\t') {
				ls--
			}
			if ls == last || s[ls-1] != '\n' {
				continue // text before the marker on its line: prose
			}
			for at := ls; at > last; {
				// s[at-1] is the "\n" that ends the line above.
				end := at - 1
				if end > last && s[end-1] == '\r' {
					end--
				}
				lineStart := strings.LastIndexByte(s[last:end], '\n') + 1 + last
				text := strings.TrimLeft(s[lineStart:end], " \t")
				if text == "" || strings.TrimLeft(text, base64Pad) != "" {
					break
				}
				start = end - len(text)
				at = lineStart
			}
			if start == m[0] {
				continue // nothing of the key above it
			}
		}
		b.WriteString(s[last:start])
		b.WriteString(Mask)
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// base64Pad is the standard base64 alphabet with its padding.
const base64Pad = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

func isBase64Pad(c byte) bool { return isBase64(c) || c == '=' }
