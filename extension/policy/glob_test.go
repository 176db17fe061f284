package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGlob(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"/System/**", "/System", true},
		{"/System/**", "/System/Library/x.plist", true},
		{"/System/**", "/Systems/x", false},
		{"/System/*", "/System/a", true},
		{"/System/*", "/System/a/b", false},
		{"**/.ssh/**", "/home/u/.ssh/id_rsa", true},
		{"**/.ssh/**", ".ssh", true},
		{"**/.ssh/**", "/home/u/ssh/id", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "/a/b/c/main.go", true},
		{"**/*.go", "/a/b/c/main.go.txt", false},
		{"/a/**/z", "/a/z", true},
		{"/a/**/z", "/a/b/c/z", true},
		{"/a/**/z", "/a/b/c/y", false},
		{"/a/**/**/z", "/a/b/z", true},
		{"/w/docs/*.md", "/w/docs/readme.md", true},
		{"/w/docs/*.md", "/w/docs/sub/readme.md", false},
		{"/w/?.txt", "/w/a.txt", true},
		{"/w/[ab].txt", "/w/c.txt", false},
		{"**", "/anything/at/all", true},
		{"relative/**", "relative/x", true},
		{"relative/**", "/relative/x", false},
	}
	for _, tc := range cases {
		t.Run(tc.pattern+" "+tc.name, func(t *testing.T) {
			g, err := compileGlob(tc.pattern)
			require.NoError(t, err)
			assert.Equal(t, tc.want, g.match(tc.name))
		})
	}
}

func TestGlobMalformed(t *testing.T) {
	for _, p := range []string{"", "/a/b**/c", "/a/[x"} {
		_, err := compileGlob(p)
		assert.Error(t, err, p)
	}
}

func TestDidYouMean(t *testing.T) {
	modes := []string{"normal", "alert", "degraded", "lockdown", "recovery"}
	assert.Equal(t, `: did you mean "lockdown"?`, didYouMean("lockdwn", modes))
	assert.Equal(t, `: did you mean "degraded"?`, didYouMean("DEGRADE", modes))
	assert.Equal(t, "", didYouMean("banana", modes))
}
