package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A line that is a credential's noun and what happened to it ("Password
// expired", a login's or a CLI's message) is a status, not the
// "name value" line of a configuration file: before the fix its second
// word was masked ("Password [REDACTED]").
func TestAttackS23StatusPhraseKept(t *testing.T) {
	for _, kept := range []string{
		"Password expired\n",
		"Password changed\n",
		"password required\n",
		"Password updated",
		"Password reset\n",
		"password incorrect\n",
		"Passphrase required\n",
		"Token expired\n",
		"token revoked\n",
		"PASSWORD EXPIRED\n",
		"     3\tPassword expired\n",
		"Password Expired # since 2026-01-01\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}

// A configuration line keeps its password masked, whatever its value
// reads like: a name that is not the noun alone (requirepass,
// masterauth, auth_pass, db_password) is a directive's, a quoted value is
// a value, and a word the status phrases do not have is a password
// (Redis's documented example is "requirepass foobared").
func TestS23StatusPhraseNearMissesMasked(t *testing.T) {
	for in, want := range map[string]string{
		"requirepass Zq7foobared\n":   "requirepass " + Mask + "\n",
		"requirepass expired\n":       "requirepass " + Mask + "\n",
		"masterauth changed\n":        "masterauth " + Mask + "\n",
		"auth_pass required\n":        "auth_pass " + Mask + "\n",
		"db_password expired\n":       "db_password " + Mask + "\n",
		"password \"expired\"\n":      "password " + Mask + "\n", // SQL's PASSWORD 'pw' rule takes the quotes too
		"password Zq7hunter2\n":       "password " + Mask + "\n",
		"password foobared\n":         "password " + Mask + "\n",
		"Password Zq7expiredtoo\n":    "Password " + Mask + "\n",
		"token Zq7abcdefghijklmnop\n": "token " + Mask + "\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}
