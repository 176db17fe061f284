// Package namefold folds a path name, and a glob, as the file systems that
// compare names loosely take them, for the rules that refuse a path: the
// sandbox workspace's deny, deny-write, secrets and protected names, the
// governance policy's forbidden_paths and the approval rules that deny or
// ask. A case- or normalisation-insensitive file system (APFS and NTFS by
// default, HFS+, ext4 casefold directories, ZFS with normalization, vfat)
// opens ~/.SSH/id_rsa as ~/.ssh/id_rsa, /ETC/passwd as /etc/passwd and
// .ss\u200bh as .ssh, so such a rule matches the folded name against the
// folded glob as well as the name against the glob as written.
//
// Rules that allow keep their spelling: folding them would widen what
// they let through (/srv/public would allow /srv/PUBLIC, another
// directory on a case-sensitive file system).
package namefold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Name returns the slash path s as every file system that compares
// names loosely would take it, so that two names one of them opens as the
// same file are equal once folded. [Glob] folds a glob the same way. It
// folds
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
// usual one) is returned as it is, without allocating: the rules run on
// every call. Bytes that are not UTF-8 become U+FFFD, as doublestar reads
// them.
func Name(s string) string {
	f, ascii, trailing := foldASCII(s)
	switch {
	case !ascii:
		return trimNameEnds(foldRunes(s))
	case trailing:
		return trimNameEnds(f)
	}
	return f
}

// foldASCII is the fast path of Name and Glob: when s is ASCII (ascii),
// s lowercased, which is all their fold does to it but for the ends of
// its components; trailing says whether one may end in a dot or a space.
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
// Name): NFKC(Fold(NFKC(Fold(NFD(s))))), which gives the same string
// exactly when Unicode's NFKD(Fold(NFKD(Fold(NFD(s))))) does, in the
// composed form, so that "é" stays one rune for a glob's "[éè]". It folds
// each component of the slash path s alone, and a "/" that NFKC makes
// (from U+FF0F FULLWIDTH SOLIDUS, ℀, ℅) stays U+FF0F: no file system
// reads it as a separator, and a/b of one component folded as two would
// leave what "secrets/*" names (TestAttackS18FFoldDotlessIAndSolidus).
func foldRunes(s string) string {
	if strings.IndexByte(s, '/') < 0 {
		return foldComponent(s)
	}
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = foldComponent(p)
	}
	return strings.Join(parts, "/")
}

// foldComponent is foldRunes for one component of a path.
func foldComponent(s string) string {
	s = strings.Map(dropIgnorable, s)
	s = norm.NFD.String(s)
	s = cases.Fold().String(s)
	s = norm.NFKC.String(s)
	s = cases.Fold().String(s)
	s = norm.NFKC.String(s)
	s = strings.Map(dropIgnorable, s)
	if strings.IndexByte(s, '/') >= 0 {
		s = strings.ReplaceAll(s, "/", "\uFF0F")
	}
	return s
}

// dropIgnorable maps a default-ignorable code point (a format character,
// a variation selector, or one Unicode lists as Other_Default_Ignorable,
// such as U+034F or the Hangul fillers) to -1, for strings.Map to drop;
// a small Cherokee letter to its capital: Unicode's case folding maps
// those to the capitals, which x/text's cases.Fold leaves apart
// (TestNameKeepsSimpleFoldOrbitsTogether); and U+0131 DOTLESS I to i:
// NTFS's $UpCase, ZFS (casesensitivity=insensitive) and Samba compare
// names upper-cased by Unicode's simple mapping, which makes ı I, so .gıt
// is .git there (TestAttackS18FFoldDotlessIAndSolidus).
func dropIgnorable(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		return r
	case r == 0x0131:
		return 'i'
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

// globSyntax are the bytes doublestar reads as syntax in a glob.
const globSyntax = `*?[]{},\!^/`

// Glob is [Name] for a glob in the project's one "**" dialect
// (github.com/bmatcuk/doublestar/v4): its literal text folds as a name
// does, and its syntax stays syntax. A rune whose fold is syntax (the
// fullwidth ＊ is *, ℀ is a/c) is written escaped, so a glob of the rules
// that refuse matches no more than what it names does, folded; a
// segment's trailing dots and spaces, plain or escaped, are dropped as a
// name's are. An ASCII glob without capitals or such an ending is
// returned as it is.
func Glob(g string) string {
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
			j = ClassEnd(g, i) + 1
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

// ClassEnd returns the index of the "]" that closes the glob character
// class opening at s[i] (after "[" and an optional "!" or "^", the class's
// first character is a member even if it is "]"), or i when it is not
// closed: a "*", "." or "/" inside a class is a member, not a globstar or
// a name's end.
func ClassEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		j++
	}
	if end := strings.IndexByte(s[min(j+1, len(s)):], ']'); end >= 0 {
		return j + 1 + end
	}
	return i
}
