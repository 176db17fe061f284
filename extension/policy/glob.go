package policy

import (
	"fmt"
	"path"
	"strings"
)

// glob is a compiled path pattern: path.Match segments separated by '/',
// where a segment "**" matches zero or more whole segments. So "/System/**"
// matches "/System", "/System/a" and "/System/a/b", and "**/.env" matches
// ".env" and "a/b/.env".
type glob struct {
	raw  string
	segs []string
}

func compileGlob(p string) (glob, error) {
	if p == "" {
		return glob{}, fmt.Errorf("empty pattern")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if strings.Contains(s, "**") {
			return glob{}, fmt.Errorf("pattern %q: ** must be a whole path segment (a/**/b), not part of one", p)
		}
		if _, err := path.Match(s, ""); err != nil {
			return glob{}, fmt.Errorf("pattern %q: segment %q is malformed: use *, ?, [...] and **", p, s)
		}
	}
	return glob{raw: p, segs: segs}, nil
}

// abs reports whether the pattern is absolute (matched against host paths).
func (g glob) abs() bool { return len(g.segs) > 0 && g.segs[0] == "" }

// match reports whether the cleaned, slash-separated name matches.
func (g glob) match(name string) bool {
	return matchSegs(g.segs, strings.Split(name, "/"))
}

// matchParts is match for a name already split at '/' (see splitPath), so
// that one split serves every pattern.
func (g glob) matchParts(parts []string) bool { return matchSegs(g.segs, parts) }

// splitPath splits name at '/' like strings.Split, into buf when it fits,
// so that the common path needs no allocation.
func splitPath(buf []string, name string) []string {
	parts := buf[:0]
	for {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return append(parts, name)
		}
		parts = append(parts, name[:i])
		name = name[i+1:]
	}
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
