package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveStream is the dashboard's Stream: the shape rule, 1 KiB behind.
var liveStream = Stream{Mask: String, Hold: 1 << 10, Lines: true}

// streamed writes chunks to s and returns all it showed, the end flushed.
func streamed(s Stream, chunks ...string) string {
	var out strings.Builder
	var held []byte
	for _, c := range chunks {
		show, rest := s.Write(held, []byte(c))
		out.WriteString(show)
		held = rest
	}
	out.WriteString(s.Flush(held))
	return out.String()
}

// streamShapes are secrets of a few shapes String masks, each with the
// parts of it that must not be shown.
var streamShapes = []struct {
	name, text string
	parts      []string
}{
	{"bearer", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl\n",
		[]string{"eyJhbGciOiJIUzI1NiJ9", "c2lnbmF0dXJl"}},
	{"aws", "aws_access_key_id AKIAIOSFODNN7EXAMPLE in use\n", []string{"AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXA"}},
	{"pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq98LwRyJdGhmKqVhJ2vbnQ5pK3XyZ\n-----END RSA PRIVATE KEY-----\n",
		[]string{"MIIEowIBAAKCAQEA", "vbnQ5pK3XyZ"}},
	{"url password", "git clone https://deploy:hunter2-very-s3cret@git.example.com/repo.git\n", []string{"hunter2-very-s3cret", "s3cret@"}},
}

// A secret split at any byte, across two chunks or three, is masked as
// the whole text masks it: the text before it is long enough that cuts
// are tried while it arrives (the dashboard's hold for two chunks; for
// three, an eighth of it, still longer than each secret, to keep the
// test quick).
func TestAttackStreamSecretSplitAtEveryOffset(t *testing.T) {
	line := "compiling a package of the project, nothing secret here\n"
	after := strings.Repeat("linking\n", 10)
	for _, sh := range streamShapes {
		t.Run(sh.name, func(t *testing.T) {
			for _, tc := range []struct {
				s      Stream
				three  bool
				before string
			}{
				{liveStream, false, strings.Repeat(line, 40)},                                 // 2.2 KiB
				{Stream{Mask: String, Hold: 128, Lines: true}, true, strings.Repeat(line, 5)}, // 280 bytes
			} {
				text := tc.before + sh.text + after
				want := String(text)
				for _, p := range sh.parts {
					require.NotContains(t, want, p, "the rule masks the secret")
				}
				check := func(got string, at ...int) bool {
					for _, p := range sh.parts {
						if !assert.NotContains(t, got, p, "hold %d, split at %v", tc.s.Hold, at) {
							return false
						}
					}
					return assert.Equal(t, want, got, "hold %d, split at %v", tc.s.Hold, at)
				}
				start, end := len(tc.before), len(tc.before)+len(sh.text)
				for i := start - 1; i <= end; i++ {
					if !check(streamed(tc.s, text[:i], text[i:]), i) {
						return
					}
					for j := i + 1; tc.three && j <= end; j++ {
						if !check(streamed(tc.s, text[:i], text[i:j], text[j:]), i, j) {
							return
						}
					}
				}
			}
		})
	}
}

// String reads a secret's name across any run of white space, and a
// secret as long as it is: more than a hold from its name, or longer than
// the hold, a secret whose first part arrived was shown without what
// makes it one (the name already shown, or the '@' or the closing tag
// not yet come).
func TestAttackStreamSecretFarFromWhatNamesIt(t *testing.T) {
	filler := strings.Repeat("compiling a package of the project, nothing secret here\n", 40)
	pw := strings.Repeat("Zq7", 1000)
	for _, c := range []struct {
		name   string
		chunks []string
	}{
		{"bearer after spaces", []string{filler + "Authorization: Bearer" + strings.Repeat(" ", 3000), "Zq7tokentokentoken\n"}},
		{"flag after spaces", []string{filler + "mysql --password" + strings.Repeat(" ", 3000), "Zq7tokentokentoken\n"}},
		{"yaml after blank lines", []string{filler + "password:\n" + strings.Repeat("\n", 3000), "  Zq7tokentokentoken\n"}},
		{"url password longer than the hold", []string{filler + "git clone https://deploy:" + pw[:2500], pw[2500:] + "@git.example.com/r.git\n"}},
		{"xml element longer than the hold", []string{filler + "<password>\n" + pw[:2500], pw[2500:] + "\n</password>\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NotContains(t, String(strings.Join(c.chunks, "")), "Zq7", "the rule masks it in the whole text")
			got := streamed(liveStream, c.chunks...)
			if i := strings.Index(got, "Zq7"); i >= 0 {
				t.Errorf("shown: %q", got[max(0, i-40):min(len(got), i+40)])
			}
		})
	}
}

// An element with a secret name not closed (yet) is masked to the end, as
// a key block with no END line is; a usage line's <password> is kept.
func TestOpenXMLElementIsMaskedToTheEnd(t *testing.T) {
	assert.Equal(t, "<password>"+Mask, String("<password>\nhunter2-s3cret\nmore"))
	assert.Equal(t, `<db:Token a="1">`+Mask, String(`<db:Token a="1">hunter2-s3cret`))
	for _, kept := range []string{"login <user> <password> [-v]", "<password>", "<b>hunter2</b> <note>text"} {
		assert.Equal(t, kept, String(kept))
	}
}

// A text that never offers a cut (a key block with no END line) costs
// masking passes for every Hold bytes that arrive, not for every byte,
// dripped a byte at a time as in larger chunks.
func TestStreamWithNoCutCostsPassesPerHold(t *testing.T) {
	text := "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat(strings.Repeat("A", 63)+"\n", 256) // 16 KiB
	for _, size := range []int{1, 7, 100} {
		passes, masked := 0, 0
		s := Stream{Hold: 1 << 10, Mask: func(x string) string { passes++; masked += len(x); return String(x) }}
		var held []byte
		for i := 0; i < len(text); i += size {
			show, rest := s.Write(held, []byte(text[i:min(i+size, len(text))]))
			require.Empty(t, show, "no cut: the key block is held")
			held = rest
		}
		assert.Len(t, held, len(text), "the caller holds it (and bounds it)")
		tries := len(text) / s.Hold
		assert.LessOrEqual(t, passes, 9*tries, "chunks of %d", size)
		assert.LessOrEqual(t, masked, 9*tries*len(text), "chunks of %d", size)
		assert.Equal(t, String(text), s.Flush(held))
	}
}
