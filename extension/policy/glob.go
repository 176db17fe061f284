package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// glob is a compiled path pattern in the project's one "**" dialect
// (github.com/bmatcuk/doublestar/v4, as sandbox.Match): "/System/**"
// matches "/System", "/System/a" and "/System/a/b", and "**/.env" matches
// ".env" and "a/b/.env".
type glob struct {
	raw string
	// host is an absolute raw with the directories in front of its first
	// wildcard resolved on the host at load time (hostPattern), when that
	// differs: resolved path arguments are matched against both.
	host string
}

func compileGlob(p string) (glob, error) {
	p = sandbox.CleanPattern(p)
	if p == "" || p == "." {
		return glob{}, fmt.Errorf("empty pattern")
	}
	for _, s := range strings.Split(p, "/") {
		if s != "**" && strings.Contains(s, "**") {
			return glob{}, fmt.Errorf("pattern %q: ** must be a whole path segment (a/**/b), not part of one", p)
		}
	}
	if !doublestar.ValidatePattern(p) {
		return glob{}, fmt.Errorf("pattern %q is malformed: use *, ?, [...], {a,b} and **", p)
	}
	g := glob{raw: p}
	if g.abs() {
		if h := hostPattern(p); h != "" && doublestar.ValidatePattern(h) {
			g.host = h
		}
	}
	return g, nil
}

// abs reports whether the pattern is absolute (matched against host paths).
func (g glob) abs() bool { return strings.HasPrefix(g.raw, "/") }

// anywhere reports whether a relative pattern begins with "**", so that it
// names its paths at any depth: such a forbidden pattern ("**/.ssh/**")
// also holds for a path outside the base directory.
func (g glob) anywhere() bool { return g.raw == "**" || strings.HasPrefix(g.raw, "**/") }

// match reports whether the cleaned, slash-separated name matches.
// compileGlob validated the pattern, so matching does not validate it again.
func (g glob) match(name string) bool {
	return doublestar.MatchUnvalidated(g.raw, name) || (g.host != "" && doublestar.MatchUnvalidated(g.host, name))
}

// within reports whether name or a directory above it matches
// (sandbox.MatchWithin).
func (g glob) within(name string) bool {
	return sandbox.MatchWithin(g.raw, name) || (g.host != "" && sandbox.MatchWithin(g.host, name))
}
