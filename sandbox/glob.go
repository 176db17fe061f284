package sandbox

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolbelt-go/toolbelt/internal/namefold"
)

// Match reports whether the slash-separated path name matches the glob
// pattern, in the project's one "**" dialect, github.com/bmatcuk/doublestar/v4:
// "**" as a whole segment matches zero or more path segments, "*", "?",
// "[a-z]" and "{a,b}" match within one segment, "\\*" is a literal star.
// So "**/*.pem" matches "a.pem" and "x/y/a.pem", ".git/**" matches
// ".git/config" and ".git" itself, and "*.go" matches only at the top level.
// A malformed pattern matches nothing; [ValidGlob] finds those.
func Match(pattern, name string) bool {
	if name == "." {
		name = ""
	}
	ok, err := doublestar.Match(pattern, name)
	return ok && err == nil
}

// EscapeGlob returns s with the characters [Match] reads as syntax (* ? [
// ] { } and the backslash) escaped, so that the pattern it makes matches the
// name s alone: a directory named "Projects [2024]" or "a{b,c}" is that
// name, not a character class or alternatives.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]{}\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldCase returns the slash path s as every file system that compares
// names loosely would take it (namefold.Name: case, normalisation,
// default-ignorable code points, trailing dots and spaces). It is the one
// fold of the rules that refuse (deny, deny-write, secrets, protected
// names), the same as the governance policy's forbidden_paths and the
// approval rules that deny or ask take; [foldGlob] folds their globs the
// same way. An ASCII name without capitals or such an ending is returned
// as it is, without allocating.
func foldCase(s string) string { return namefold.Name(s) }

// foldGlob is [foldCase] for a glob (namefold.Glob): its literal text
// folds as a name does, and its syntax stays syntax.
func foldGlob(g string) string { return namefold.Glob(g) }

func segMatch(pat, seg string) bool {
	ok, err := doublestar.Match(pat, seg)
	return ok && err == nil
}

// ValidGlob reports whether pattern is well formed for [Match], "**" only
// as a whole path segment: doublestar reads "**" inside one as "*", so
// "**.pem" would name only the top directory's .pem files and "secrets**"
// nothing below secrets (write "**/*.pem", "secrets/**"). The governance
// policy refuses such patterns too. Nor may a pattern be spelt like an
// unclean path, with a "." or ".." segment, a "//" or a "/" at the end
// ("./keys/**", "keys/", "**/.env/"), in a {a,b} alternative either: the
// names Match compares with are clean, so such a pattern names nothing
// (write "keys/**", "**/.env"; [CleanPattern] cleans the ends).
func ValidGlob(pattern string) bool {
	return pattern != "" && doublestar.ValidatePattern(pattern) && !globstarInSegment(pattern) && !uncleanSegment(pattern)
}

// uncleanSegment reports whether pattern holds a path segment that no
// clean name has: "." or "..", or an empty one ("//", a "/" at the end of
// the pattern or of an alternative). A segment here is what lies between
// two of "/", "{", "," and "}" with a "/" on at least one side (or the
// whole pattern), so "{.,x}" and ".{a,b}" are not; a leading "/" (an
// absolute pattern, "/" itself) is allowed.
func uncleanSegment(pattern string) bool {
	if pattern == "/" {
		return false
	}
	start, left := 0, byte(0) // the segment's first byte, the separator before it (0: none)
	for i := 0; i <= len(pattern); i++ {
		var right byte // the separator after the segment (0: the end)
		if i < len(pattern) {
			switch pattern[i] {
			case '\\':
				i++
				continue
			case '[':
				i = namefold.ClassEnd(pattern, i)
				continue
			case '/', '{', ',', '}':
				right = pattern[i]
			default:
				continue
			}
		}
		seg := pattern[start:i]
		if strings.IndexByte(seg, '\\') >= 0 { // "\." is "." to Match
			seg = unescape(seg)
		}
		opens := left == 0 || left == '/' || left == '{' || left == ','
		closes := right == 0 || right == '/' || right == '}' || right == ','
		slashed := left == '/' || right == '/' || left == 0 && right == 0
		if opens && closes && slashed && (seg == "." || seg == "..") {
			return true
		}
		if seg == "" && left == '/' && closes {
			return true
		}
		start, left = i+1, right
	}
	return false
}

// unescape returns s with each "\x" read as x.
func unescape(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b = append(b, s[i])
	}
	return string(b)
}

// globstarInSegment reports whether pattern holds two unescaped stars in
// a row, outside a character class, in a segment that is not "**".
func globstarInSegment(pattern string) bool {
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			continue
		}
		for i := 0; i < len(seg); i++ {
			switch seg[i] {
			case '\\':
				i++
			case '[':
				i = namefold.ClassEnd(seg, i)
			case '*':
				if i+1 < len(seg) && seg[i+1] == '*' {
					return true
				}
			}
		}
	}
	return false
}

// MatchBelow reports whether some path under the directory dir (a
// slash-separated path as [Match] takes, "." for the top) could match
// pattern: whether listing or searching dir may reach what pattern names.
// "secrets/**" can match below ".", "secrets" and "secrets/a", not below
// "docs"; "**/*.pem" can match below any directory.
func MatchBelow(pattern, dir string) bool { return couldMatchBelow(pattern, dir) }

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

// MatchWithin reports whether name or a directory above it matches
// pattern: whether name lies in what pattern names ("secrets" and
// "secrets/*" hold secrets/a/key). Rules that forbid use it, so that a
// directory they name forbids its contents.
func MatchWithin(pattern, name string) bool {
	// A matching directory above name begins with the pattern's literal
	// head (what comes before its first wildcard; "/etc/**" holds "/etc"
	// too), and so does name: a name that does not is matched by none.
	// (doublestar compares runes, and reads every invalid byte as U+FFFD:
	// a head with either is left to the walk; so is a name the walk's
	// path.Dir would clean, "//etc/x".)
	head := pattern[:strings.IndexAny(pattern+"*", `*?[{\`)]
	clean := path.Clean(name) == name
	if utf8.ValidString(head) && !strings.ContainsRune(head, utf8.RuneError) && !strings.HasPrefix(name, strings.TrimSuffix(head, "/")) && clean {
		return false
	}
	if name == "." || name == "/" || name == "" {
		return false
	}
	if onePass(pattern, clean) {
		return Match(pattern, name) || Match(pattern+"/**", name)
	}
	for ; name != "." && name != "/" && name != ""; name = path.Dir(name) {
		if Match(pattern, name) {
			return true
		}
	}
	return false
}

// onePass reports whether MatchWithin matches pattern against a name
// (clean when path.Clean leaves it as it is) in one pass: pattern/**
// matches what lies below a match of pattern. Matching each directory
// above the name in turn instead is quadratic in the name
// (TestAttackS18FGlobWithinIsOnePass: seconds for a 128 KiB path). Not
// for a pattern that matches "" or an absolute name's empty first segment
// ("***": pattern/** would take every absolute name) or ends in "/", nor
// for a malformed one ("\" would be "\/**"), nor for an unclean name,
// whose directories path.Dir cleans: those walk. So does a pattern with
// "**" inside a segment ("/x***"), which doublestar reads in ways of its
// own and ValidGlob refuses.
func onePass(pattern string, clean bool) bool {
	return clean && !strings.HasSuffix(pattern, "/") && doublestar.ValidatePattern(pattern) && !globstarInSegment(pattern) && !Match(pattern, "") && !Match(pattern+"/**", "/\x01")
}

// CleanPattern returns a path pattern in the form Match's names have:
// workspace-relative without "./" in front, and without "/" at the end
// ("./secrets/" is "secrets"). Policies clean their patterns with it, so
// that a pattern written like a path matches what it names.
func CleanPattern(p string) string {
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return p
}
