package approval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s as a person should see it before approving it: any
// character a terminal would act on, or that hides or reorders text, is
// shown as an escape instead — C0 controls (\r, \n and \t included), DEL,
// C1 controls, bidirectional overrides and isolates, zero-width and
// invisible characters (every Unicode format character, category Cf), line
// and paragraph separators, spaces other than U+0020 — and a byte that is
// not UTF-8 as \xNN. Then what is shown is what will run: ESC[2K cannot
// erase a line, \r cannot write over it, U+202E cannot turn "exe.txt"
// around. When anything is escaped, backslashes are doubled too, so the
// escaped form reads back unambiguously; a string with nothing to escape is
// returned as it is.
//
// Every approver that shows a call to a person uses it (the terminal, the
// MCP elicitation message); so should yours.
func Visible(s string) string { return visible(s, false) }

// VisibleLines is Visible that keeps line breaks ("\n"), for text shown on
// several lines (indented arguments).
func VisibleLines(s string) string { return visible(s, true) }

func hidden(r rune, keepNewlines bool) bool {
	switch {
	case r == '\n':
		return !keepNewlines
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0xad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x180e,
		r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x206f,
		r == 0x3164, r >= 0xfe00 && r <= 0xfe0f, r == 0xfeff, r == 0xffa0, r >= 0xfff9 && r <= 0xfffb,
		r >= 0xfff0 && r <= 0xfff8, r >= 0xe0000 && r <= 0xe0fff,
		r == 0x17b4, r == 0x17b5, r >= 0x180b && r <= 0x180f:
		// Invisible text: soft hyphen, fillers, zero-width and bidi
		// controls, variation selectors (Mongolian ones too), Khmer's
		// inherent vowels, Unicode tags (which can carry a whole hidden
		// sentence) and the reserved code points around them and at
		// U+FFF0, which renderers draw as nothing.
		return true
	case r > 0x80 && unicode.Is(unicode.Zs, r):
		// Spaces other than ' ' (no-break, en, figure, ideographic, ...)
		// look like one, but a shell reads them as part of a word.
		return true
	}
	// Every other format character (category Cf): the format controls of
	// musical notation, shorthand and hieroglyphs draw as nothing too.
	return r >= 0x80 && unicode.Is(unicode.Cf, r)
}

func visible(s string, keepNewlines bool) string {
	needs := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || hidden(r, keepNewlines) {
			needs = true
			break
		}
		i += n
	}
	if !needs {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n' && !keepNewlines:
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case hidden(r, keepNewlines) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r, keepNewlines) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r, keepNewlines):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}
