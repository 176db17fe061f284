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
	// command it begins has). Known values need no such context.
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
	// Each cut a hold earlier, a few at most: at the last line's end
	// (within a hold unless Lines), else a character's; with text other
	// than white space after it (a name and blank lines wait for a value).
	for i, cut := 0, len(text)-s.Hold; i < 4 && cut > 0; i, cut = i+1, cut-s.Hold {
		nl := strings.LastIndexByte(text[:cut], '\n')
		for s.Lines && nl > 0 && continued(text[:nl]) {
			// A continued line ("\" at its end) and the next are one
			// command, whose password flag may come lines later.
			nl = strings.LastIndexByte(text[:nl], '\n')
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

// Flush returns held masked: the end of the text, or all that is shown.
func (s Stream) Flush(held []byte) string { return s.Mask(string(held)) }
