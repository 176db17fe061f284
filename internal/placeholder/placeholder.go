// Package placeholder parses the "{name}" templates of tool specs: argv
// elements of shell tools, and URLs, headers and bodies of HTTP tools. It is
// the one parser of that syntax.
package placeholder

import (
	"fmt"
	"strings"
)

// Part is a piece of a template: literal text, or the name of an argument.
type Part struct {
	Lit  string
	Name string // "" for a literal
}

// Names returns the placeholder names of parts, in order.
func Names(parts []Part) []string {
	var out []string
	for _, p := range parts {
		if p.Name != "" {
			out = append(out, p.Name)
		}
	}
	return out
}

// ValidName reports whether s can name a placeholder: a letter or '_', then
// letters, digits, '_' and '-'.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// Parse splits s into literals and {name} placeholders. With escapes, "{{"
// and "}}" are literal braces; without, any brace that does not open a
// well-formed placeholder is an error (a URL or header has no use for one:
// percent-encode it).
func Parse(s string, escapes bool) ([]Part, error) {
	hint := ""
	if escapes {
		hint = " (write {{ and }} for literal braces)"
	}
	var parts []Part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, Part{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escapes && c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case escapes && c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return nil, fmt.Errorf("%q has a '}' at byte %d with no matching '{'%s", s, i, hint)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q opens '{' at byte %d without closing it%s", s, i, hint)
			}
			name := s[i+1 : i+end]
			if !ValidName(name) {
				return nil, fmt.Errorf("%q has {%s}, which is not a placeholder: a placeholder names one argument, such as {path} (letters, digits, '_' and '-')%s", s, name, hint)
			}
			flush()
			parts = append(parts, Part{Name: name})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}
