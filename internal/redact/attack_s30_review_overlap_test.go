package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS30ReviewOverlappingShortEchoes: 7893499 masks overlapping
// echoes of a long value whole, but the one pass for values of up to 64
// bytes (a strings.Replacer) goes on after each match, so an echo that
// starts inside the last one, of the same value or another, kept its
// end: "[REDACTED]-5678" of "1234-5678" written twice overlapping.
func TestAttackS30ReviewOverlappingShortEchoes(t *testing.T) {
	cases := []struct {
		text   string
		values []string
	}{
		{"id 1234-1234-1234 end", []string{"1234-1234"}},
		{"id abcdefghi end", []string{"abcdef", "defghi"}},
		{"id ABCDEFGHI end", []string{"abcdef", "defghi"}},
		{"id xyzxyzxyzxyz end", []string{"xyzxyzxyz"}},
	}
	for _, c := range cases {
		assert.Equal(t, "id "+Mask+" end", Scrub(c.text, c.values), "%q %q", c.text, c.values)
	}
	// Behind an escape too, and echoes apart stay apart.
	assert.Equal(t, "id "+Mask+" end", Scrub(`id 1234-1234\u002d1234 end`, []string{"1234-1234"}))
	assert.Equal(t, Mask+" and "+Mask, Scrub("1234-1234 and 1234-1234", []string{"1234-1234"}))
	// A text made of overlapping echoes is masked, whole or in part, and
	// nothing of it kept.
	long := strings.Repeat("1234-", 1<<18)
	got := Scrub(long, []string{"1234-1234"})
	assert.NotContains(t, got, "1234")
}
