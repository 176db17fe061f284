package sandbox

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
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

// foldCase returns the slash path s as every file system that compares
// names loosely would take it, so that two names one of them opens as the
// same file are equal once folded. It is the one fold of the rules that
// refuse (deny, deny-write, secrets, protected names); [foldGlob] folds
// their globs the same way. It folds
//
//   - case, by Unicode's full case folding (ß and ẞ are ss, the ligature
//     ﬁ is fi, ſ is s, the Kelvin sign k, ς σ): ext4's casefold
//     directories compare NFD names fully case-folded, APFS, HFS+, NTFS
//     and ZFS fold case too;
//   - normalisation, to NFKC: APFS and ext4 casefold open café in NFD as
//     café in NFC, and ZFS with normalization=formKC opens ｓｅｒｖｅｒ.ｋｅｙ
//     (fullwidth) as server.key. Together these are Unicode's
//     compatibility caseless match (D146), composed;
//   - default-ignorable code points (format characters such as U+200B
//     ZERO WIDTH SPACE, U+200C, U+FEFF, the soft hyphen, variation
//     selectors), which it drops: HFS+ ignores U+200C-U+200F, U+202A-U+202E,
//     U+206A-U+206F and U+FEFF in names (git's CVE-2014-9390, .g\u200cit),
//     and ext4 casefold ignored every one of them until Linux 6.13;
//   - trailing dots and spaces of each component, which it drops (a
//     component of nothing else is kept): vfat and exFAT drop trailing
//     dots, so .env. opens .env, and Windows drops spaces as well.
//
// A name that is ASCII, without capitals and without such an ending (the
// usual one) is returned as it is, without allocating. Bytes that are not
// UTF-8 become U+FFFD, as doublestar reads them.
func foldCase(s string) string {
	f, ascii, trailing := foldASCII(s)
	switch {
	case !ascii:
		return trimNameEnds(foldRunes(s))
	case trailing:
		return trimNameEnds(f)
	}
	return f
}

// foldASCII is the fast path of foldCase and foldGlob: when s is ASCII
// (ascii), s lowercased, which is all their fold does to it but for the
// ends of its components; trailing says whether one may end in a dot or
// a space.
func foldASCII(s string) (f string, ascii, trailing bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return "", false, false
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == '.' || c == ' ':
			trailing = trailing || i+1 == len(s) || s[i+1] == '/'
		}
	}
	if !upper {
		return s, true, trailing
	}
	return strings.ToLower(s), true, trailing
}

// foldRunes folds s's case, normalisation and ignorable code points (see
// foldCase): NFKC(Fold(NFKC(Fold(NFD(s))))), which gives the same string
// exactly when Unicode's NFKD(Fold(NFKD(Fold(NFD(s))))) does, in the
// composed form, so that "é" stays one rune for a glob's "[éè]".
func foldRunes(s string) string {
	s = strings.Map(dropIgnorable, s)
	s = norm.NFD.String(s)
	s = cases.Fold().String(s)
	s = norm.NFKC.String(s)
	s = cases.Fold().String(s)
	s = norm.NFKC.String(s)
	return strings.Map(dropIgnorable, s)
}

// dropIgnorable maps a default-ignorable code point (a format character,
// a variation selector, or one Unicode lists as Other_Default_Ignorable,
// such as U+034F or the Hangul fillers) to -1, for strings.Map to drop,
// and a small Cherokee letter to its capital: Unicode's case folding maps
// those to the capitals, which x/text's cases.Fold leaves apart
// (TestFoldCaseKeepsSimpleFoldOrbitsTogether).
func dropIgnorable(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		return r
	case 0xAB70 <= r && r <= 0xABBF:
		return r - 0xAB70 + 0x13A0
	case 0x13F8 <= r && r <= 0x13FD:
		return r - 0x13F8 + 0x13F0
	case unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point):
		return -1
	}
	return r
}

// trimNameEnds drops the trailing dots and spaces of each component of
// the slash path s, unless a component holds nothing else.
func trimNameEnds(s string) string {
	out := make([]byte, 0, len(s))
	for i, c := range strings.Split(s, "/") {
		if i > 0 {
			out = append(out, '/')
		}
		if t := strings.TrimRight(c, ". "); t != "" {
			c = t
		}
		out = append(out, c...)
	}
	return string(out)
}

// globSyntax are the bytes [Match] reads as syntax in a glob.
const globSyntax = `*?[]{},\!^/`

// foldGlob is [foldCase] for a glob: its literal text folds as a name
// does, and its syntax stays syntax. A rune whose fold is syntax (the
// fullwidth ＊ is *, ℀ is a/c) is written escaped, so a glob of the
// rules that refuse matches no more than what it names does, folded; a
// segment's trailing dots and spaces, plain or escaped, are dropped as a
// name's are.
func foldGlob(g string) string {
	if f, ascii, trailing := foldASCII(g); ascii {
		if trailing {
			return trimGlobEnds(f)
		}
		return f
	}
	var b strings.Builder
	for i := 0; i < len(g); {
		c := g[i]
		if c == '\\' && i+1 < len(g) && g[i+1] < utf8.RuneSelf {
			b.WriteString(g[i : i+2])
			i += 2
			continue
		}
		if c == '\\' && i+1 < len(g) {
			i++ // a rune that is not ASCII needs no escape; its fold is escaped below if it must be
			continue
		}
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(g[i:])
		r := g[i : i+n]
		if f := foldRunes(r); strings.ContainsAny(f, globSyntax) {
			for j := 0; j < len(f); j++ {
				if strings.IndexByte(globSyntax, f[j]) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(f[j])
			}
		} else {
			b.WriteString(r)
		}
		i += n
	}
	return trimGlobEnds(foldRunes(b.String()))
}

// trimGlobEnds drops the trailing dots and spaces, plain or escaped, of
// each segment of the glob g (a segment ends at a "/" outside a class, or
// at the end), unless a segment holds nothing else.
func trimGlobEnds(g string) string {
	out := make([]byte, 0, len(g))
	start, keep := 0, 0 // out's index of the segment's start, and of the end of its last token that is not a dot or space
	cut := func() {
		if keep > start {
			out = out[:keep]
		}
	}
	for i := 0; i < len(g); {
		j, trail := i+1, false
		switch c := g[i]; {
		case c == '\\' && i+1 < len(g):
			j, trail = i+2, g[i+1] == '.' || g[i+1] == ' '
		case c == '[':
			j = classEnd(g, i) + 1
		case c == '/':
			cut()
			out = append(out, '/')
			start, keep = len(out), len(out)
			i++
			continue
		case c == '.' || c == ' ':
			trail = true
		}
		out = append(out, g[i:j]...)
		if !trail {
			keep = len(out)
		}
		i = j
	}
	cut()
	return string(out)
}

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
				i = classEnd(pattern, i)
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
				i = classEnd(seg, i)
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
	if utf8.ValidString(head) && !strings.ContainsRune(head, utf8.RuneError) && !strings.HasPrefix(name, strings.TrimSuffix(head, "/")) && path.Clean(name) == name {
		return false
	}
	for ; name != "." && name != "/" && name != ""; name = path.Dir(name) {
		if Match(pattern, name) {
			return true
		}
	}
	return false
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

// classEnd returns the index of the "]" that closes the character class
// opening at s[i] (after "[" and an optional "!" or "^", the class's first
// character is a member even if it is "]"), or i when it is not closed.
// ValidGlob's checks skip a class with it: a "*", "/" or "." inside one is
// a member, not a globstar, a separator or a segment.
func classEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		j++
	}
	if end := strings.IndexByte(s[min(j+1, len(s)):], ']'); end >= 0 {
		return j + 1 + end
	}
	return i
}
