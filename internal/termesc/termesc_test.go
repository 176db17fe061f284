package termesc_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/termesc"
)

// Each character a terminal acts on and JSON encoders write raw is
// escaped; its neighbours in the code charts, and plain text, are kept.
func TestEscape(t *testing.T) {
	for _, r := range []rune{0x7f, 0x80, 0x85, 0x9b, 0x9f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069} {
		s := "a" + string(r) + "b"
		want := fmt.Sprintf(`a\u%04xb`, r)
		assert.Equal(t, want, termesc.Escape(s), "%U", r)
		assert.Equal(t, want, string(termesc.EscapeBytes([]byte(s))), "%U", r)
	}
	for _, s := range []string{"plain", "é ü ß", "\u00a0", "\u2027x", "\u2065", "\u206a", "\u2027", "日本語", "\xc2", "\xe2\x80"} {
		assert.Equal(t, s, termesc.Escape(s), "%q", s)
		assert.Equal(t, -1, termesc.Index(s), "%q", s)
	}
}

// In a JSON string the escape decodes to the same text.
func TestEscapeDecodesToTheSameText(t *testing.T) {
	in := "x\u009b1A\u009b2K\u0085fake\u202eexe.txt\x7f"
	raw, err := json.Marshal(map[string]string{"v": in})
	require.NoError(t, err)
	out := termesc.EscapeBytes(raw)
	assert.Equal(t, -1, termesc.Index(out))
	var got map[string]string
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, in, got["v"])
}

func ExampleEscape() {
	fmt.Println(termesc.Escape("done\u009b2K"))
	// Output: done\u009b2K
}
