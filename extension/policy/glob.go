package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolbelt-go/toolbelt/internal/namefold"
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
	// fold and foldHost are raw and host folded (namefold.Glob), which a
	// forbidden pattern matches a folded name against too (forbids); an
	// allowed one keeps its spelling.
	fold, foldHost string
	// short and shortHost are fold and foldHost with their names spelt
	// also as the 8.3 short names vfat and NTFS open them by
	// (shortNames), or "": a folded name with a "~" in it is matched
	// against them too (forbids).
	short, shortHost string
}

func compileGlob(p string) (glob, error) {
	p = sandbox.CleanPattern(p)
	if p == "" || p == "." {
		return glob{}, fmt.Errorf("empty pattern")
	}
	if !sandbox.ValidGlob(p) { // the dialect's one rule for what is well formed
		if doublestar.ValidatePattern(p) {
			return glob{}, fmt.Errorf("pattern %q: ** must be a whole path segment (a/**/b), not part of one", p)
		}
		return glob{}, fmt.Errorf("pattern %q is malformed: use *, ?, [...], {a,b} and **", p)
	}
	g := glob{raw: p}
	if g.abs() {
		if h := hostPattern(p); h != "" && doublestar.ValidatePattern(h) {
			g.host = h
		}
	}
	g.fold = namefold.Glob(g.raw)
	g.short = shortNames(g.fold)
	if g.host != "" {
		g.foldHost = namefold.Glob(g.host)
		g.shortHost = shortNames(g.foldHost)
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

// witnessIn is a path the pattern names in the workspace whose directory
// is dir (slash-separated), for asking the workspace whether it hides the
// pattern: relative, or, for an absolute pattern, absolute under dir (as
// written or with its host prefix resolved). It is "" when none is found.
func (g glob) witnessIn(dir string) string {
	for _, raw := range []string{g.raw, g.host} {
		w := witness(raw)
		if w == "" || !g.within(w) {
			continue
		}
		if !g.abs() {
			return w
		}
		if r, ok := strings.CutPrefix(w, strings.TrimSuffix(dir, "/")+"/"); ok && r != "" {
			return w
		}
	}
	return ""
}

// witness is a path the pattern raw names: its literal parts, with
// "toolbelt-probe" for * and **, "x" for ?, a class's first character and
// the first of alternatives, or "" where this reading fails (a negated
// class). The caller checks that the pattern matches it.
func witness(raw string) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '\\':
			if i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			}
		case '*':
			for i+1 < len(raw) && raw[i+1] == '*' {
				i++
			}
			b.WriteString("toolbelt-probe")
		case '?':
			b.WriteByte('x')
		case '[':
			end := strings.IndexByte(raw[i+1:], ']')
			if end < 1 || strings.ContainsRune("!^\\", rune(raw[i+1])) {
				return ""
			}
			b.WriteByte(raw[i+1])
			i += 1 + end
		case '{':
			alt, rest, ok := firstAlternative(raw[i:])
			if !ok {
				return ""
			}
			raw = raw[:i] + alt + rest
			i-- // read the alternative in place of the braces
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// firstAlternative splits s, which starts with "{", into the first of its
// brace's alternatives and what follows the brace.
func firstAlternative(s string) (alt, rest string, ok bool) {
	depth, cut := 0, -1
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '{':
			depth++
		case ',':
			if depth == 1 && cut < 0 {
				cut = j
			}
		case '}':
			if depth--; depth == 0 {
				if cut < 0 {
					cut = j
				}
				return s[1:cut], s[j+1:], true
			}
		}
	}
	return "", "", false
}

// within reports whether name or a directory above it matches
// (sandbox.MatchWithin).
func (g glob) within(name string) bool {
	return sandbox.MatchWithin(g.raw, name) || (g.host != "" && sandbox.MatchWithin(g.host, name))
}

// folded reports whether the pattern, folded, differs from the pattern as
// written, or the folded name fname from name: when neither does, matching
// them folded would only repeat the match as written.
func (g glob) folded(name, fname string) bool {
	return fname != name || g.fold != g.raw || g.foldHost != g.host
}

// forbids is within for a forbidden pattern: name (fname folded,
// namefold.Name) or a directory above it matches as written or as a file
// system that compares names loosely opens it. On APFS, NTFS or an ext4
// casefold directory, ~/.SSH/id, ~/.ss\u200bh/id and /etc./passwd open
// what "**/.ssh/**" and "/etc/**" name
// (TestAttackS18ForbiddenPathSpeltAsAFoldingFileSystemOpensIt); on vfat
// and NTFS, ~/SSH~1/id does too, by its short name
// (TestAttackS26ForbiddenNameByItsShortName).
func (g glob) forbids(name, fname string) bool {
	if g.within(name) {
		return true
	}
	if g.folded(name, fname) && (sandbox.MatchWithin(g.fold, fname) || g.foldHost != "" && sandbox.MatchWithin(g.foldHost, fname)) {
		return true
	}
	// A short name has a "~": other names skip the larger patterns.
	return strings.Contains(fname, "~") && (g.short != "" && sandbox.MatchWithin(g.short, fname) || g.shortHost != "" && sandbox.MatchWithin(g.shortHost, fname))
}

// holdsBelow reports whether some path under the directory dir (fdir
// folded) could match the forbidden pattern, as written, folded or by
// short names (sandbox.MatchBelow): whether listing or searching dir may
// reach what it forbids.
func (g glob) holdsBelow(dir, fdir string) bool {
	if sandbox.MatchBelow(g.raw, dir) || g.host != "" && sandbox.MatchBelow(g.host, dir) {
		return true
	}
	if g.folded(dir, fdir) && (sandbox.MatchBelow(g.fold, fdir) || g.foldHost != "" && sandbox.MatchBelow(g.foldHost, fdir)) {
		return true
	}
	return strings.Contains(fdir, "~") && (g.short != "" && sandbox.MatchBelow(g.short, fdir) || g.shortHost != "" && sandbox.MatchBelow(g.shortHost, fdir))
}
