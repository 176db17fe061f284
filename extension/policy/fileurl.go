package policy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
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
		if !startsFileURL(raw) {
			return
		}
		// Declared past the check: its address escapes into Unmarshal,
		// so it is a heap allocation for every string otherwise.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return
		}
		if p, ok := hostpath.FileURLPath(s); ok {
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
				if p, ok := hostpath.FileURLPath(s); ok {
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

// startsFileURL reports whether the JSON string v may be a file: URL once
// decoded: whether it begins, as hostpath.FileURLPath reads it, with
// "file:" in any case, after the blanks and controls a browser drops,
// inside any number of "view-source:" and "jar:" (each may be followed by
// blanks; tabs and line breaks count nowhere). It reads only as far as
// that grammar allows, so a file's content is not decoded for it. It
// read a fixed 21 bytes before, and "jar:" with 20 blanks, or jar: five
// times, then "file:///etc/passwd" was never judged
// (TestAttackS32ReviewFileURLHeadPastTheBuffer). FileURLPath judges what
// it lets through.
func startsFileURL(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	// head is what was read of the current level, after its blanks: it
	// starts again after each "view-source:" and "jar:".
	head := make([]byte, 0, len("view-source:"))
	for i := 1; i < len(v)-1; {
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
					c = 0x80 // not ASCII: no letter of the grammar
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
		if c == '\t' || c == '\n' || c == '\r' || c <= ' ' && len(head) == 0 {
			continue
		}
		head = append(head, c)
		switch h := string(head); {
		case strings.EqualFold(h, "view-source:"), strings.EqualFold(h, "jar:"):
			head = head[:0]
		case strings.EqualFold(h, "file:"):
			return true
		case !hasPrefixFold("view-source:", h) && !hasPrefixFold("jar:", h) && !hasPrefixFold("file:", h):
			return false
		}
	}
	return false
}

// hasPrefixFold reports whether s begins with prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
