package redact

import (
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// Stream shows a text that arrives in chunks (a command's output, a
// response body) masked while it arrives. A chunk may end inside a secret
// and a name may come before its value, so the text is shown Hold bytes
// behind, cut only where masking each side alone gives what masking the
// whole does. The caller keeps the text not shown (held) and bounds it: a
// text with no such cut (a key block with no END line) is held whole.
type Stream struct {
	// Mask is the rule: String, or a masker of a call's known values.
	Mask func(string) string
	// Hold, more than zero, is how far behind the end a cut is made:
	// longer than the longest secret Mask finds, in any of its forms.
	Hold int
	// Lines cuts at a line's end only: String reads a name and its value
	// across any run of spaces, and a URL's password however long, so a
	// line is shown once it has ended (a line continued with "\" once the
	// command it begins has, a tag written over lines once it is
	// finished, a .netrc entry once a token not its own follows it).
	// Known values need no such context.
	Lines bool
}

// Write adds chunk to held and returns the masked text that may be shown
// now and the text still held. A cut is tried once for every Hold bytes
// that arrive (a few masking passes over held), not for every chunk: a
// text dripped a byte at a time costs passes per Hold bytes.
func (s Stream) Write(held, chunk []byte) (show string, rest []byte) {
	before := len(held)
	if held = append(held, chunk...); len(held) < 2*s.Hold || len(held)/s.Hold == before/s.Hold {
		return "", held
	}
	text := string(held)
	whole := s.Mask(text)
	netrc := -1
	if s.Lines && containsAny(text, netrcHints) {
		netrc = openNetrcEntry(text)
	}
	// Each cut a hold earlier, a few at most: at the last line's end
	// (within a hold unless Lines), else a character's; with text other
	// than white space after it (a name and blank lines wait for a value).
	for i, cut := 0, len(text)-s.Hold; i < 4 && cut > 0; i, cut = i+1, cut-s.Hold {
		nl := strings.LastIndexByte(text[:cut], '\n')
		floor, tagged := nl-maxTag, false
		for k := 0; s.Lines && nl > 0; k++ {
			// A continued line ("\" at its end) and the next are one
			// command, whose password flag may come lines later; a tag
			// over lines (<add key="DbPassword"\n value="...") is named
			// by an attribute a line before its value.
			if k == 8 {
				nl = -1 // too many to look past: no cut this time
			} else if continued(text[:nl]) {
				nl = strings.LastIndexByte(text[:nl], '\n')
			} else if netrc >= 0 && nl > netrc {
				// A .netrc entry the text ends inside: its password
				// may come on a line still to come, however far.
				nl = strings.LastIndexByte(text[:netrc], '\n')
			} else if valuePending(text[:nl]) {
				// "name: DB_PASSWORD" ends the line: its value is on
				// the next.
				nl = strings.LastIndexByte(text[:nl], '\n')
			} else if lt := openTag(text[:nl], floor); lt >= 0 && !tagged {
				// Once: a line before a tag that is "open" too is
				// text, not XML ("x <b> <c" on every line).
				nl, tagged = strings.LastIndexByte(text[:lt], '\n'), true
			} else {
				break
			}
		}
		switch {
		case nl >= 0 && (s.Lines || cut-nl <= s.Hold):
			cut = nl + 1
		case s.Lines:
			cut = 0
		default:
			cut = len(textcut.Head(text, cut))
		}
		if cut == 0 || strings.TrimSpace(text[cut:]) == "" {
			continue
		}
		if head := s.Mask(text[:cut]); strings.HasPrefix(whole, head) && head+s.Mask(text[cut:]) == whole {
			return head, append(held[:0], held[cut:]...)
		}
	}
	return "", held
}

// continued reports whether line, without its "\n", ends in a line
// continuation: a shell's "\" or PowerShell's "`".
func continued(line string) bool {
	line = strings.TrimSuffix(line, "\r")
	return strings.HasSuffix(line, "\\") || strings.HasSuffix(line, "`")
}

// maxTag is how far before a cut a tag that the cut would fall inside may
// begin: a "<" further back holds no cut (code's i<n is no tag).
const maxTag = 4 << 10

// openTag returns where the first tag that text may end inside begins: a
// "<" and a letter at or after floor, with no ">" after it; or -1.
func openTag(text string, floor int) int {
	from := max(0, floor, strings.LastIndexByte(text, '>')+1)
	for i := from; i < len(text); i++ {
		k := strings.IndexByte(text[i:], '<')
		if k < 0 || i+k+1 >= len(text) {
			return -1
		}
		if i += k; text[i+1] == '_' || (text[i+1]|0x20 >= 'a' && text[i+1]|0x20 <= 'z') {
			return i
		}
	}
	return -1
}

// Flush returns held masked: the end of the text, or all that is shown.
func (s Stream) Flush(held []byte) string { return s.Mask(string(held)) }
