package namefold

import (
	"testing"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
)

// Name keeps every pair that Unicode's simple case folding holds equal
// equal, and folding twice changes nothing. x/text's cases.Fold leaves
// the small Cherokee letters apart from their capitals, which
// CaseFolding.txt maps them to; dropIgnorable joins them.
func TestNameKeepsSimpleFoldOrbitsTogether(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		f := unicode.SimpleFold(r)
		if f == r {
			continue
		}
		a, b := Name(string(r)), Name(string(f))
		if a != b {
			t.Errorf("%U folds to %q, %U (its simple fold) to %q", r, a, f, b)
		}
		if Name(a) != a {
			t.Errorf("%U folds to %q, and that to %q", r, a, Name(a))
		}
	}
	for _, s := range []string{".pgpaß", "conﬁg/app.yaml", "ｓｅｒｖｅｒ.ｋｅｙ", "cafe\u0301.", "x\u0323\u0301", "℀", "Ⅻ", "\xff.env", "/ETC./passwd"} {
		f := Name(s)
		assert.Equal(t, f, Name(f), "folding %q twice", s)
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main.go", "main.go"},
		{"Keys/Server.PEM", "keys/server.pem"},
		{"/ETC/passwd", "/etc/passwd"},
		{"/home/u/.SSH/id_rsa", "/home/u/.ssh/id_rsa"},
		{".pgpaß", ".pgpass"},
		{".PGPAẞ", ".pgpass"},
		{"conﬁg/App.yaml", "config/app.yaml"},
		{"id_rſa", "id_rsa"},
		{"server.\u212Aey", "server.key"},
		{"cafe\u0301", "caf\u00e9"},
		{".e\u200bnv\ufeff", ".env"},
		{".g\u200cit", ".git"},
		{"ｓｅｒｖｅｒ.ｋｅｙ", "server.key"},
		{".env.", ".env"},
		{"/etc./passwd", "/etc/passwd"},
		{".aws. /credentials. ", ".aws/credentials"},
		{"a/.../b", "a/.../b"}, // a component of dots only is kept
		{"/", "/"},
		{"x\u2024", "x"}, // ONE DOT LEADER is a dot, at the end dropped
	} {
		assert.Equal(t, c.want, Name(c.in), "Name(%q)", c.in)
	}
}

// A glob's syntax stays syntax; a rune that folds to syntax is escaped,
// so it names what it looks like and no more.
func TestGlob(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"**/*.pem", "**/*.pem"},
		{"**/*.PEM", "**/*.pem"},
		{"/ETC/**", "/etc/**"},
		{"**/.pgpaß", "**/.pgpass"},
		{"caf\u00e9/**", "caf\u00e9/**"},
		{"cafe\u0301/**", "caf\u00e9/**"},
		{"x＊", `x\*`},
		{"x℀/**", "xa\uFF0Fc/**"}, // NFKC's "/" is no separator
		{"[ı]/**", "[i]/**"},
		{`\ｓecret`, "secret"},
		{`\＊`, `\*`},
		{"[＊a]", `[\*a]`},
		{"notes./**", "notes/**"},
		{`notes\./**`, "notes/**"},
		{"notes\\ \\./x", "notes/x"},
		{"[.]/x", "[.]/x"},
		{".../x", ".../x"},
	} {
		assert.Equal(t, c.want, Glob(c.in), "Glob(%q)", c.in)
	}
	match := func(g, n string) bool {
		ok, err := doublestar.Match(g, n)
		return ok && err == nil
	}
	assert.True(t, match(Glob("x＊"), Name("x＊")))
	assert.False(t, match(Glob("x＊"), Name("xa")), "a fullwidth star is a star, not a wildcard")
	assert.True(t, match(Glob("[éa]*"), Name("e\u0301x")), "a class holds a composed letter")
	assert.True(t, match(Glob("**/.ssh/**"), Name("/home/u/.S\u200bSH./id")))
}

func BenchmarkName(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"ascii", "src/internal/workspace_test.go"},
		{"ascii-capitals", "src/Internal/README.md"},
		{"ascii-trailing-dot", "src/internal/notes."},
		{"unicode", "docs/Straße/café-ﬁle.md"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Name(c.in)
			}
		})
	}
}
