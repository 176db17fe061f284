package sandbox

import (
	"path"
	"strings"
)

// Match reports whether the slash-separated relative path name matches the
// glob pattern. A pattern is split at "/" into segments; a segment "**"
// matches zero or more whole path segments, any other segment is matched
// against one path segment with [path.Match] ("*", "?", "[a-z]", "\\*").
// So "**/*.pem" matches "a.pem" and "x/y/a.pem", ".git/**" matches ".git/config"
// and ".git" itself, and "*.go" matches only at the top level.
// A malformed pattern matches nothing; [ValidGlob] finds those.
func Match(pattern, name string) bool {
	ps := strings.Split(pattern, "/")
	ns := strings.Split(name, "/")
	if name == "" || name == "." {
		ns = nil
	}
	// Wildcard matching over segments with "**" as the star: the classic
	// greedy algorithm with one backtracking point, O(len(ps)*len(ns)).
	pi, ni := 0, 0
	starP, starN := -1, 0
	for ni < len(ns) {
		switch {
		case pi < len(ps) && ps[pi] == "**":
			starP, starN = pi, ni
			pi++
		case pi < len(ps) && segMatch(ps[pi], ns[ni]):
			pi++
			ni++
		case starP >= 0:
			starN++
			pi, ni = starP+1, starN
		default:
			return false
		}
	}
	for pi < len(ps) && ps[pi] == "**" {
		pi++
	}
	return pi == len(ps)
}

func segMatch(pat, seg string) bool {
	ok, err := path.Match(pat, seg)
	return ok && err == nil
}

// ValidGlob reports whether pattern is well formed for [Match].
func ValidGlob(pattern string) bool {
	if pattern == "" {
		return false
	}
	for _, s := range strings.Split(pattern, "/") {
		if _, err := path.Match(s, ""); err != nil {
			return false
		}
	}
	return true
}

// couldMatchBelow reports whether some path under the directory dir could
// match pattern, so that a directory on the way to allowed files is itself
// reachable.
func couldMatchBelow(pattern, dir string) bool {
	if dir == "." || dir == "" {
		return true
	}
	ps := strings.Split(pattern, "/")
	segs := strings.Split(dir, "/")
	for i, seg := range segs {
		if i >= len(ps) {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		if !segMatch(ps[i], seg) {
			return false
		}
	}
	return len(ps) > len(segs)
}
