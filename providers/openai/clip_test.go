package openai

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// An id the endpoint sent is cut for an error's text where a character
// starts (textcut), so the error quotes characters, not their stray bytes.
func TestClipIDKeepsCharactersWhole(t *testing.T) {
	id := "x" + strings.Repeat("é", 40) // 81 bytes: byte 64 is inside an "é"
	got := clipID(id)
	assert.True(t, utf8.ValidString(got), "a character was split: %q", got)
	assert.True(t, strings.HasPrefix(id, strings.TrimSuffix(got, "...")))
	assert.Equal(t, "x"+strings.Repeat("é", 31)+"...", got)
	assert.Equal(t, "chatcmpl-1", clipID("chatcmpl-1"))
}
