package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBraceAlternatives(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"plain/path", []string{"plain/path"}},
		{"{a,b}/k", []string{"a/k", "b/k"}},
		{"x{a,b}y{1,2}", []string{"xay1", "xay2", "xby1", "xby2"}},
		{"{x,{y,z}}/k", []string{"x/k", "y/k", "z/k"}},
		{"{x}/{a,b}", []string{"{x}/a", "{x}/b"}}, // no comma: literal
		{"\\{a,b}", []string{"\\{a,b}"}},          // escaped
		{"{a,b", []string{"{a,b"}},                // unclosed
		{"{,s}ecrets", []string{"ecrets", "secrets"}},
	} {
		got, ok := braceAlternatives(c.in, maxBraceAlternatives)
		assert.True(t, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	_, ok := braceAlternatives(strings.Repeat("{a,b}", 7), maxBraceAlternatives)
	assert.False(t, ok, "128 paths are more than the limit")
	got, ok := braceAlternatives(strings.Repeat("{a,b}", 6), maxBraceAlternatives)
	assert.True(t, ok)
	assert.Len(t, got, 64)
}
