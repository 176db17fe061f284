package redact

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// netrcEntries are .netrc entries (see curl's and Python's readers: the
// tokens machine HOST or default, then login, account, port and password
// with their values, in any order, over any lines, blanks and tabs, "#"
// comments among them, a value quoted with "..." holding blanks). "Zq7"
// marks each secret: the password, and the account (an "additional
// account password", netrc(5)).
var netrcEntries = []struct{ name, text string }{
	{"over lines", "machine api.example.com\n  login alice\n  password Zq7hunter2-secret\n"},
	{"tabs", "machine api.example.com\n\tlogin\talice\n\tpassword\tZq7hunter2-secret\n"},
	{"CRLF", "machine api.example.com\r\n  login alice\r\n  password Zq7hunter2-secret\r\n"},
	{"default", "default\n  login anonymous\n  password Zq7hunter2-secret\n"},
	{"password on the line after login", "machine api.example.com login alice\npassword Zq7hunter2-secret\n"},
	{"password first", "machine api.example.com\n  password Zq7hunter2-secret\n  login alice\n"},
	{"comment among the tokens", "machine api.example.com\n  login alice\n  # the work account\n  password Zq7hunter2-secret\n"},
	{"comment after a token", "machine api.example.com login alice # work\n  password Zq7hunter2-secret\n"},
	{"account", "machine ftp.example.com\n  login alice\n  account Zq7acct-secret\n  password Zq7hunter2-secret\n"},
	{"account without password", "machine ftp.example.com login alice account Zq7acct-secret\n"},
	{"quoted with blanks", "machine api.example.com login alice password \"Zq7hunter2 with Zq7blanks\"\n"},
	{"quoted with an escaped quote", "machine api.example.com login alice password \"Zq7a\\\" Zq7b\"\n"},
	{"commented-out entry", "machine a.example.com login bob password Zq7one\n# machine b.example.com login carol password Zq7two\n"},
	{"second entry", "machine a.example.com login bob password Zq7one\nmachine b.example.com\n  login carol\n  password Zq7two\n"},
}

// The whole-text rule masks each entry's secrets, and keeps the rest.
func TestAttackS21NetrcEntries(t *testing.T) {
	for _, c := range netrcEntries {
		got := String(c.text)
		assert.NotContains(t, got, "Zq7", "%s: %q", c.name, got)
		assert.Contains(t, got, "login", "%s: %q", c.name, got)
		if strings.HasPrefix(c.text, "machine") {
			assert.Contains(t, got, ".example.com", "%s: %q", c.name, got)
		}
	}
	assert.Equal(t, "machine h\n  login alice\n  # work\n  password "+Mask+"\n", String("machine h\n  login alice\n  # work\n  password hunter2\n"))
	assert.Equal(t, "machine h login alice account "+Mask+" password "+Mask+"\n", String("machine h login alice account acct password pw\n"))
}

// The streaming rule masks them at every chunk boundary, with the
// dashboard's hold and with holds shorter than the entry (8 bytes: a cut
// is tried on every line), and with the password far below its machine
// line (blank lines and comments longer than the dashboard's hold).
func TestAttackS21NetrcStream(t *testing.T) {
	line := "listing the files of the project, nothing secret here\n"
	cases := append([]struct{ name, text string }{}, netrcEntries...)
	cases = append(cases,
		struct{ name, text string }{"password far", "machine api.example.com\n  login alice\n" + strings.Repeat("  # a comment line\n", 100) + "  password Zq7hunter2-secret\n"},
		struct{ name, text string }{"password far, blank lines", "default login alice" + strings.Repeat("\n", 3000) + "password Zq7hunter2-secret\n"})
	for _, c := range cases {
		streams := []Stream{{Mask: String, Hold: 8, Lines: true}}
		if strings.HasPrefix(c.name, "password far") {
			streams = append(streams, Stream{Mask: String, Hold: 128, Lines: true}, liveStream) // longer than their holds
		}
		for _, s := range streams {
			filler := strings.Repeat(line, 1+2*s.Hold/len(line))
			text := filler + c.text + "done\n"
			for i := len(filler) - 1; i <= len(filler)+len(c.text); i++ {
				if k := i - len(filler); k > 48 && len(c.text)-k > 48 && k%257 != 0 {
					continue // within a long run of comments or blank lines: every byte is alike
				}
				got := streamed(s, text[:i], text[i:])
				if k := strings.Index(got, "Zq7"); k >= 0 {
					t.Errorf("%s, hold %d, split at %d: shown %q", c.name, s.Hold, i-len(filler), got[max(0, k-60):min(len(got), k+20)])
					break
				}
			}
		}
	}
}

// Text that only looks like an entry stays readable: prose with the
// words machine, default, login, account and password, an entry without
// a secret, and a "#" comment that is a password's value.
func TestS21NetrcNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"the machine has no password set\n",
		"this machine's login account is locked\n",
		"machine api.example.com login alice\n",
		"machine api.example.com\n  login alice\n  port 21\nnext: the build\n",
		"the default account settings apply\n",
		"Login account: see the docs\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
	// A value is a value, whatever it starts with.
	assert.Equal(t, "machine h login alice password "+Mask+"\n", String("machine h login alice password #hunter2\n"))
	// Text after an entry ends is not the entry's.
	assert.Equal(t, "machine h login alice password "+Mask+" the build went on\n", String("machine h login alice password pw the build went on\n"))
}

// A text the size of a big output full of near misses (the entry words
// in a row, entries with no secret, one entry word far from the other)
// costs its length to mask and to find the entry it ends inside. The cost
// is counted, not timed (a shared machine's clock is noise), two ways:
// the bytes the searches for an entry's first word look at
// (netrcSearched), and the bytes allocated. 64 times the text is linear
// work at 64 times the count and quadratic at 4,096 times; the bound is
// twice linear. A search for "machine" from each token on (the words
// found not kept for the next entry) looked at 4,096 times the bytes and
// failed, as a copy of the text for each masked value would.
func TestAttackS21NetrcNearMissesCostTheirLength(t *testing.T) {
	for _, unit := range []string{
		"machine machine default ",
		"machine h\n  login a\n  # c\n  port 1\n",
		"default login \"a b\" account ",
		"the default is x\n",
		"# default\n",
		"default login a\n# a comment\n",
	} {
		small, large := strings.Repeat(unit, (16<<10)/len(unit)), strings.Repeat(unit, (1<<20)/len(unit))+"machine"
		scan := func(s string) (searched int, allocated uint64) {
			netrcSearched = &searched
			defer func() { netrcSearched = nil }()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			maskNetrc(s)
			openNetrcEntry(s)
			runtime.ReadMemStats(&after)
			return searched, after.TotalAlloc - before.TotalAlloc
		}
		sSmall, aSmall := scan(small)
		sLarge, aLarge := scan(large)
		t.Logf("%q: 1 MiB looked at %d bytes and allocated %d, 16 KiB %d and %d", unit, sLarge, aLarge, sSmall, aSmall)
		require.Positive(t, sSmall, "%q: the count sees the search", unit)
		assert.LessOrEqual(t, sLarge, 128*sSmall, "%q: 1 MiB looked at %d bytes, 16 KiB %d", unit, sLarge, sSmall)
		assert.LessOrEqual(t, aLarge, 128*aSmall+(1<<20), "%q: 1 MiB allocated %d bytes, 16 KiB %d", unit, aLarge, aSmall)
	}
}
