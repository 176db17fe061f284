package policy

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// fileURLPaths returns the local paths that the file: URLs in the JSON
// value v name: v itself when it is such a string, or each such string
// anywhere in a list or object it holds ({"request": {"url": ...}}, as
// HTTP request tools take it). A tool that opens URLs (a browser's
// navigate, a fetch tool that takes file: URLs) reads the file, whatever
// its argument is called.
func fileURLPaths(v []byte) []string {
	var out []string
	add := func(raw []byte) {
		var s string
		if !startsFileURL(raw) || json.Unmarshal(raw, &s) != nil {
			return
		}
		if p, ok := fileURLPath(s); ok {
			out = append(out, p)
		}
	}
	switch {
	case len(v) > 0 && v[0] == '"':
		add(v)
	case len(v) > 0 && (v[0] == '[' || v[0] == '{') && mayHoldFileURL(v):
		// One pass over the value's tokens, however deep it nests (a
		// walk that decoded each level again would read a deep value
		// once per level). Keys are read too: a key that is a file: URL
		// is judged as a value would be.
		dec := json.NewDecoder(bytes.NewReader(v))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok {
				if p, ok := fileURLPath(s); ok {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// mayHoldFileURL reports whether the JSON value v may hold a string that
// is a file: URL: it has "file:" in any case, or an escape that may spell
// it. It saves decoding the other lists.
func mayHoldFileURL(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			return true
		case ':':
			if i >= 4 && strings.EqualFold(string(v[i-4:i]), "file") {
				return true
			}
		}
	}
	return false
}

// startsFileURL reports whether the JSON string v begins with "file:" in
// any case once decoded, after the blanks and controls a browser drops
// (fileURLPath), reading only as far as that: a file's content is not
// decoded for it.
func startsFileURL(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	var head []byte
	for i := 1; i < len(v)-1 && len(head) < 5; {
		c, n := v[i], 1
		if c == '\\' && i+1 < len(v)-1 {
			n = 2
			switch v[i+1] {
			case 'u':
				if i+6 > len(v)-1 {
					return false
				}
				r, err := strconv.ParseUint(string(v[i+2:i+6]), 16, 16)
				if err != nil {
					return false
				}
				c, n = byte(r), 6
				if r > 0x7f {
					c = 0x80 // not ASCII: no letter of "file:"
				}
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 'b', 'f':
				c = ' ' // a control: dropped before the URL, no letter in it
			default:
				c = v[i+1]
			}
		}
		i += n
		if c <= ' ' && len(head) == 0 || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		head = append(head, c)
	}
	return strings.EqualFold(string(head), "file:")
}

// fileURLPath returns the path of the local file the URL s names, when s
// is a file: URL (in any case, after the blanks and controls a browser
// drops): its path decoded, whatever the host ("file://localhost/x" and
// "file:/x" are /x). A URL Go cannot parse is cut by hand.
func fileURLPath(s string) (string, bool) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	t = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, t)
	if len(t) < 5 || !strings.EqualFold(t[:5], "file:") {
		return "", false
	}
	if u, err := url.Parse(t); err == nil {
		if u.Opaque != "" {
			if p, err := url.PathUnescape(u.Opaque); err == nil {
				return p, true
			}
			return u.Opaque, true
		}
		if u.Path == "" {
			return "/", true
		}
		return u.Path, true
	}
	p := strings.ReplaceAll(t[5:], "\\", "/")
	if rest, ok := strings.CutPrefix(p, "//"); ok {
		p = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p = rest[i:]
		}
	}
	if q := strings.IndexAny(p, "?#"); q >= 0 {
		p = p[:q]
	}
	return p, true
}
