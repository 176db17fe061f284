package httptool

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/placeholder"
)

// part is one piece of a template: literal text, or the name of an argument.
type part struct {
	lit string
	arg string
}

// template is a parsed "{name}" template such as
// "https://api.example.com/repos/{owner}/{repo}".
type template struct {
	src   string
	parts []part
}

// parseTemplate splits s into literals and {name} placeholders. A brace that
// does not open a well-formed placeholder is an error: templates have no
// escapes, and a literal brace in a URL or header must be percent-encoded.
func parseTemplate(s string) (template, error) {
	t := template{src: s}
	ps, err := placeholder.Parse(s, false)
	if err != nil {
		return t, fmt.Errorf("template %w", err)
	}
	for _, p := range ps {
		t.parts = append(t.parts, part{lit: p.Lit, arg: p.Name})
	}
	return t, nil
}

// args returns the placeholder names in order.
func (t template) args() []string {
	var out []string
	for _, p := range t.parts {
		if p.arg != "" {
			out = append(out, p.arg)
		}
	}
	return out
}

// single returns the argument name when the whole template is one
// placeholder ("{labels}"), which lets an array argument repeat a query
// parameter.
func (t template) single() (string, bool) {
	if len(t.parts) == 1 && t.parts[0].arg != "" {
		return t.parts[0].arg, true
	}
	return "", false
}

// argError is a problem with the model's arguments.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// scalar renders an argument value for a path, query or header. Arrays and
// objects have no single textual form there and are refused.
func scalar(name string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case []any:
		return "", &argError{fmt.Sprintf("argument %q is an array: it can only fill a query parameter whose template is exactly {%s}", name, name)}
	case map[string]any:
		return "", &argError{fmt.Sprintf("argument %q is an object: it cannot fill a URL or header; send it in the body", name)}
	}
	return "", &argError{fmt.Sprintf("argument %q has an unsupported value", name)}
}

// present reports whether every placeholder of t has a non-null argument.
func (t template) present(args map[string]any) bool {
	for _, p := range t.parts {
		if p.arg != "" {
			if v, ok := args[p.arg]; !ok || v == nil {
				return false
			}
		}
	}
	return true
}

// expand fills t from args; escape, when set, is applied to each value.
func (t template) expand(args map[string]any, escape func(name, v string) (string, error)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.arg == "" {
			b.WriteString(p.lit)
			continue
		}
		v, ok := args[p.arg]
		if !ok || v == nil {
			// The URL's fixed query is not quoted: it may hold an API
			// key (APIs that take one as ?key=).
			shown, _, _ := strings.Cut(t.src, "?")
			return "", &argError{fmt.Sprintf("argument %q is missing: it fills {%s} in %q", p.arg, p.arg, shown)}
		}
		s, err := scalar(p.arg, v)
		if err != nil {
			return "", err
		}
		if escape != nil {
			if s, err = escape(p.arg, s); err != nil {
				return "", err
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// escapePath escapes one path value with url.PathEscape, so '/', '?', '#'
// and '%' in a value never change the URL's structure. Empty values and
// dot segments are refused: they would change which resource the path
// names once a server or proxy normalises it ("//" collapses, ".."
// climbs). That holds inside the value too ("../../admin", "a/..",
// "..\admin", "/", "a//b"): its '/' is sent as %2F, but servers and
// proxies decode %2F (and some take '\' for '/') before they resolve
// the path; a stock http.FileServer does.
func escapePath(name, v string) (string, error) {
	if v == "" {
		return "", &argError{fmt.Sprintf("argument %q is empty: a path segment must have a value", name)}
	}
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] != '/' && v[i] != '\\' {
			continue
		}
		switch seg := v[start:i]; seg {
		case "":
			return "", &argError{fmt.Sprintf("argument %q has an empty segment (a leading, trailing or doubled / or \\): a path segment must have a value", name)}
		case ".", "..":
			return "", &argError{fmt.Sprintf("argument %q holds the dot segment %q: dot segments are not allowed in a URL path, not even between slashes of one value", name, seg)}
		}
		start = i + 1
	}
	// PathEscape keeps '+', which some servers decode as a space in a
	// path too (Amazon S3 keys); %2B means '+' to all of them.
	return strings.ReplaceAll(url.PathEscape(v), "+", "%2B"), nil
}

// checkHeaderValue refuses control characters, which would split or corrupt
// a header: CR, LF and NUL, and every other one but the tab (net/http
// refuses them only when it writes the request, which would look like a
// failure of the connection).
func checkHeaderValue(name, v string) (string, error) {
	if strings.ContainsAny(v, "\r\n\x00") {
		return "", &argError{fmt.Sprintf("argument %q contains a line break or NUL: header values must be one line", name)}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return "", &argError{fmt.Sprintf("argument %q contains the control character %q: header values cannot carry control characters", name, c)}
		}
	}
	return v, nil
}

// checkCookieValue checks a value filling a Cookie header template
// ("session={sid}"): only cookie octets (RFC 6265), so a value cannot add
// a cookie ("x; admin=1") or end one early (space, comma, quote,
// backslash), as '&' cannot add a query parameter.
func checkCookieValue(name, v string) (string, error) {
	if _, err := checkHeaderValue(name, v); err != nil {
		return "", err
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\' {
			return "", &argError{fmt.Sprintf("argument %q contains %q, which a cookie value cannot hold (it would add or split a cookie): use letters, digits and !#$%%&'()*+-./:<=>?@[]^_`{|}~", name, c)}
		}
	}
	return v, nil
}

// validHeaderName reports whether s is an HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}
