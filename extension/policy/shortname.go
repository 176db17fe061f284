package policy

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// shortNames returns the folded pattern p with each literal segment that
// is not a valid 8.3 name spelt also as the short names vfat and NTFS may
// give it, by which they open it too (".ssh" is SSH~1, "credentials"
// CREDEN~1, or CR1A2B~1 on NTFS once many names share the basis), or ""
// when no segment has one. Segments with wildcards, escapes or non-ASCII
// are left as written: their short names cannot be told from the pattern.
// Only forbidden patterns use it (forbids).
func shortNames(p string) string {
	segs := strings.Split(p, "/")
	changed := false
	for i, s := range segs {
		if alias := shortAlias(s); alias != "" {
			segs[i] = "{" + s + "," + alias + "}"
			changed = true
		}
	}
	if !changed {
		return ""
	}
	out := strings.Join(segs, "/")
	if !doublestar.ValidatePattern(out) {
		return ""
	}
	return out
}

// shortAlias is a glob for the short names a file system that keeps 8.3
// aliases may give the literal, folded name s: its basis (upper case
// there; folded here) cut to leave room for "~N", then its extension
// ("certificates" is certif~1 up to certif~9, certi~10 and so on;
// "server-cert.pem" server~1.pem), or Windows's hashed form (two letters
// of the basis and four hex digits). It is "" for a name that is a valid
// 8.3 name, which has no alias.
func shortAlias(s string) string {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "*?[]{}\\") || valid83(s) {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ""
		}
	}
	// Leading dots and spaces are dropped; the last other dot starts the
	// extension; spaces and the other dots are dropped, and the
	// characters 8.3 names cannot hold become "_".
	t := strings.TrimLeft(s, ". ")
	base, ext := t, ""
	if i := strings.LastIndexByte(t, '.'); i > 0 {
		base, ext = t[:i], t[i+1:]
	}
	base, ext = basis(base), basis(ext)
	if base == "" {
		return ""
	}
	ext = ext[:min(len(ext), 3)]
	var alts []string
	for digits := 1; digits <= 6; digits++ {
		n := min(len(base), 8-1-digits)
		if n < 1 {
			break
		}
		alts = append(alts, base[:n]+"~"+strings.Repeat("[0-9]", digits))
	}
	alts = append(alts, base[:min(len(base), 2)]+strings.Repeat("[0-9a-f]", 4)+"~[0-9]")
	alias := "{" + strings.Join(alts, ",") + "}"
	if ext != "" {
		alias += "." + ext
	}
	return alias
}

// basis is part of a name as an 8.3 alias holds it: without spaces and
// dots, and "_" for the characters such a name cannot hold.
func basis(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '.':
		case strings.IndexByte("+,;=[]", c) >= 0:
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// valid83 reports whether the folded name s is a valid 8.3 name (a basis
// of one to eight characters, an optional extension of one to three,
// characters 8.3 names may hold), which a file system keeps as it is,
// without an alias.
func valid83(s string) bool {
	base, ext, dot := strings.Cut(s, ".")
	if base == "" || len(base) > 8 || len(ext) > 3 || dot && ext == "" {
		return false
	}
	for _, part := range []string{base, ext} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80 || strings.IndexByte("!#$%&'()-@^_`{}~", c) >= 0) {
				return false
			}
		}
	}
	return true
}
