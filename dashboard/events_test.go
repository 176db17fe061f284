package dashboard

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/tool"
)

// An output chunk over maxChunk keeps its tail cut where a character
// starts (textcut), so the page shows the text: a cut inside a character
// made the chunk invalid UTF-8, and the whole chunk was then sent quoted
// (%q) as escapes.
func TestEventOutputTailKeepsCharactersWhole(t *testing.T) {
	for _, data := range []string{
		strings.Repeat("€", 3000),        // the last 8192 bytes start inside a "€"
		strings.Repeat("é", 5000) + "\n", // the last 8192 bytes start inside an "é"
	} {
		ev := eventOf(&tool.Event{Kind: tool.EventOutput, Stream: "stdout", Data: []byte(data)})
		assert.True(t, utf8.ValidString(ev.Data), "not UTF-8: %.40q", ev.Data)
		assert.True(t, strings.HasSuffix(data, ev.Data), "not the output's tail, as text: %.40q", ev.Data)
		assert.LessOrEqual(t, len(ev.Data), maxChunk)
		assert.Greater(t, len(ev.Data), maxChunk-utf8.UTFMax)
	}
	// Bytes that are not UTF-8 at all are still sent quoted.
	ev := eventOf(&tool.Event{Kind: tool.EventOutput, Data: []byte{0xff, 'a'}})
	assert.Equal(t, `"\xffa"`, ev.Data)
}
