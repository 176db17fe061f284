package sandbox

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// foldCase keeps every pair that Unicode's simple case folding holds
// equal (the fold it replaced) equal, and folding twice changes nothing.
// x/text's cases.Fold leaves the small Cherokee letters apart from their
// capitals, which CaseFolding.txt maps them to; dropIgnorable joins them.
func TestFoldCaseKeepsSimpleFoldOrbitsTogether(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		f := unicode.SimpleFold(r)
		if f == r {
			continue
		}
		a, b := foldCase(string(r)), foldCase(string(f))
		if a != b {
			t.Errorf("%U folds to %q, %U (its simple fold) to %q", r, a, f, b)
		}
		if foldCase(a) != a {
			t.Errorf("%U folds to %q, and that to %q", r, a, foldCase(a))
		}
	}
	for _, s := range []string{".pgpaß", "conﬁg/app.yaml", "ｓｅｒｖｅｒ.ｋｅｙ", "cafe\u0301.", "x\u0323\u0301", "℀", "Ⅻ", "\xff.env"} {
		f := foldCase(s)
		assert.Equal(t, f, foldCase(f), "folding %q twice", s)
	}
}

func TestFoldCase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main.go", "main.go"},
		{"Keys/Server.PEM", "keys/server.pem"},
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
		{".aws. /credentials. ", ".aws/credentials"},
		{"a/.../b", "a/.../b"}, // a component of dots only is kept
		{"x\u2024", "x"},       // ONE DOT LEADER is a dot, at the end dropped
	} {
		assert.Equal(t, c.want, foldCase(c.in), "foldCase(%q)", c.in)
	}
}

// A glob's syntax stays syntax; a rune that folds to syntax is escaped,
// so it names what it looks like and no more.
func TestFoldGlob(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"**/*.pem", "**/*.pem"},
		{"**/*.PEM", "**/*.pem"},
		{"**/.pgpaß", "**/.pgpass"},
		{"caf\u00e9/**", "caf\u00e9/**"},
		{"cafe\u0301/**", "caf\u00e9/**"},
		{"x＊", `x\*`},
		{"x℀/**", "xa\uFF0Fc/**"}, // NFKC's "/" is no separator (namefold, TestAttackS18FFoldDotlessIAndSolidus)
		{`\ｓecret`, "secret"},
		{`\＊`, `\*`},
		{"[＊a]", `[\*a]`},
		{"notes./**", "notes/**"},
		{`notes\./**`, "notes/**"},
		{"notes\\ \\./x", "notes/x"},
		{"[.]/x", "[.]/x"},
		{".../x", ".../x"},
	} {
		assert.Equal(t, c.want, foldGlob(c.in), "foldGlob(%q)", c.in)
	}
	assert.True(t, Match(foldGlob("x＊"), foldCase("x＊")))
	assert.False(t, Match(foldGlob("x＊"), foldCase("xa")), "a fullwidth star is a star, not a wildcard")
	assert.True(t, Match(foldGlob("[éa]*"), foldCase("e\u0301x")), "a class holds a composed letter")
}

// An ordinary name costs the fold nothing: no allocation.
func TestFoldCaseASCIIAllocatesNothing(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = foldCase("src/internal/workspace_test.go") }))
}

func BenchmarkFoldCase(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"ascii", "src/internal/workspace_test.go"},
		{"ascii-capitals", "src/Internal/README.md"},
		{"ascii-trailing-dot", "src/internal/notes."},
		{"unicode", "docs/Straße/café-ﬁle.md"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = foldCase(c.in)
			}
		})
	}
}
