package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A password prompt with its answer on its line, as a transcript of a
// terminal (script(1), expect, a tool that echoes what it typed) writes
// it: git's "Password for 'https://user@host': pw", sudo's, ssh's "Enter
// passphrase for key '...': pw", a PIN's. Before the fix the answer was
// shown: the name before the ":" is the URL's or the user's.
func TestAttackS23PromptAnswerMasked(t *testing.T) {
	for in, want := range map[string]string{
		"Password for 'https://bob@github.com': Zq7pw\n":                                         "Password for 'https://bob@github.com': " + Mask + "\n",
		"Password for 'https://bob@github.com':Zq7pw":                                            "Password for 'https://bob@github.com':" + Mask,
		"[sudo] password for bob: Zq7pw\n":                                                       "[sudo] password for bob: " + Mask + "\n",
		"Enter passphrase for key '/home/u/.ssh/id_rsa': Zq7 pass phrase\n":                      "Enter passphrase for key '/home/u/.ssh/id_rsa': " + Mask + "\n",
		"Enter PIN for 'PIV Card Holder pin (PIV_II)': Zq7123456\r\n":                            "Enter PIN for 'PIV Card Holder pin (PIV_II)': " + Mask + "\r\n",
		"Username for 'https://github.com': bob\nPassword for 'https://bob@github.com': Zq7pw\n": "Username for 'https://github.com': bob\nPassword for 'https://bob@github.com': " + Mask + "\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// A prompt with no answer after it, and the username's prompt, are kept.
func TestS23PromptNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"Password for 'https://bob@github.com': \n",
		"[sudo] password for bob:\n",
		"Username for 'https://github.com': bob\n",
		"fatal: Authentication failed for 'https://github.com/o/r.git/'\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
