package shell

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

func TestFitCutsOnRuneBoundariesAndStatesTheCut(t *testing.T) {
	tests := []struct {
		name   string
		kept   string
		total  int64
		budget int
		want   string
	}{
		{"within budget", "hello", 5, 10, "hello"},
		{"no budget keeps all", strings.Repeat("x", 50), 50, 0, strings.Repeat("x", 50)},
		{"head and tail", "aaaaXXXXbbbb", 12, 8, "aaaa" + sandbox.TruncationMarker(4) + "bbbb"},
		// "é" is two bytes: a cut through it drops the half rune, and the
		// cut count includes it.
		{"runes kept whole", "aéébb", 7, 4, "a" + sandbox.TruncationMarker(4) + "bb"},
		// kept is already the sandbox's head+tail of 1000 bytes: the cut
		// counts what the command produced.
		{"cut counts the original total", "aaaaXXbbbb", 1000, 8, "aaaa" + sandbox.TruncationMarker(992) + "bbbb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := fit([]byte(tc.kept), tc.total, tc.budget)
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.want != tc.kept, cut)
			assert.True(t, utf8.Valid(got))
		})
	}
}

func TestQuoteArgv(t *testing.T) {
	assert.Equal(t, `git log -- 'a b' '$(id)' '' 'it'\''s'`, quoteArgv([]string{"git", "log", "--", "a b", "$(id)", "", "it's"}))
}
