package sandbox

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "dir/sub/a.go", true},
		{"**/*.go", "dir/sub/a.txt", false},
		{".git/**", ".git", true},
		{".git/**", ".git/config", true},
		{".git/**", ".git/refs/heads/main", true},
		{".git/**", ".github/x", false},
		{".git/**", "sub/.git/config", false},
		{"**/.git/**", "sub/.git/config", true},
		{"**", "anything/at/all", true},
		{"**", ".", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/b/**/c", "a/1/b/2/3/c", true},
		{"a/**/b/**/c", "a/1/c/2/b", false},
		{"**/*.pem", "keys/server.pem", true},
		{"**/*.pem", "server.pem.bak", false},
		{"src/*/main.go", "src/cmd/main.go", true},
		{"src/*/main.go", "src/a/b/main.go", false},
		{"file?.txt", "file1.txt", true},
		{"file?.txt", "file10.txt", false},
		{"[ab].txt", "a.txt", true},
		{"[ab].txt", "c.txt", false},
		{`\*.txt`, "*.txt", true},
		{`\*.txt`, "a.txt", false},
		{".env", ".env", true},
		{".env", "sub/.env", false},
		{"[bad", "[bad", false},
		{"**/**/**/x", "a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/y", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, Match(tc.pattern, tc.name), "Match(%q, %q)", tc.pattern, tc.name)
	}
	assert.True(t, ValidGlob("**/*.go"))
	assert.False(t, ValidGlob("[bad"))
	assert.False(t, ValidGlob(""))
}

func TestCouldMatchBelow(t *testing.T) {
	assert.True(t, couldMatchBelow("src/**", "src"))
	assert.True(t, couldMatchBelow("src/pkg/*.go", "src"))
	assert.True(t, couldMatchBelow("src/pkg/*.go", "src/pkg"))
	assert.False(t, couldMatchBelow("src/pkg/*.go", "src/pkg/a.go"))
	assert.False(t, couldMatchBelow("README.md", "docs"))
	assert.True(t, couldMatchBelow("**/x", "any/dir"))
}

func TestMatchBelow(t *testing.T) {
	for _, tc := range []struct {
		pattern, dir string
		want         bool
	}{
		{"secrets/**", ".", true},
		{"secrets/**", "secrets", true},
		{"secrets/**", "secrets/a", true},
		{"secrets/**", "docs", false},
		{"secrets/key", ".", true},
		{"secrets/key", "secrets", true},
		{"secrets/key", "secrets/key", false},
		{"**/*.pem", "any/dir", true},
		{"/srv/ws/secrets/**", "/srv/ws", true},
		{"/srv/ws/secrets/**", "/srv/ws/docs", false},
	} {
		assert.Equal(t, tc.want, MatchBelow(tc.pattern, tc.dir), "MatchBelow(%q, %q)", tc.pattern, tc.dir)
	}
}

func TestCleanPattern(t *testing.T) {
	for in, want := range map[string]string{
		"./secrets/": "secrets", ".//secrets/**": "secrets/**", "././a": "a", "/etc/": "/etc",
		"/": "/", "**/*.pem": "**/*.pem", "secrets": "secrets", "./": "",
	} {
		if got := CleanPattern(in); got != want {
			t.Errorf("CleanPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchWithin(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"secrets", "secrets", true},
		{"secrets", "secrets/key", true},
		{"secrets/*", "secrets/a/key", true},
		{"secrets", "docs/secrets", false},
		{"*.md", "docs/a.txt", false},
		{"/etc", "/etc/passwd", true},
		{"secrets", ".", false},
	} {
		assert.Equal(t, tc.want, MatchWithin(tc.pattern, tc.name), "%q in %q", tc.name, tc.pattern)
	}
}

// MatchWithin skips names that do not begin with the pattern's literal
// head; it must answer as the plain walk over the directories does.
func FuzzMatchWithinAsTheWalk(f *testing.F) {
	for _, s := range [][2]string{
		{"/etc/**", "/etc"}, {"/etc/**", "/etcetera/x"}, {"/etc/*", "/etc/a/b"}, {"**/.ssh/**", "/h/.ssh/id"},
		{"secrets", "secrets/key"}, {"sec*/k", "secrets/k/x"}, {`a\*b/**`, "a*b/c"}, {"{a,b}/c", "b/c/d"},
		{"a/[bc]/**", "a/c"}, {"/", "/x"}, {"", "x"}, {"a/", "a/b"}, {"x", "."},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		walk := false
		for n := name; n != "." && n != "/" && n != ""; n = path.Dir(n) {
			if Match(pattern, n) {
				walk = true
				break
			}
		}
		if got := MatchWithin(pattern, name); got != walk {
			t.Fatalf("MatchWithin(%q, %q) = %v, the walk says %v", pattern, name, got, walk)
		}
	})
}
