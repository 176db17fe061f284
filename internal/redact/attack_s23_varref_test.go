package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A value that is only a reference to a variable (${TOKEN}, $TOKEN) is
// not a secret: the shell, Compose or the CI fills it in. It is shown
// whole, not as "[REDACTED]}" (the "}" was left after the mask).
func TestAttackS23VariableReferenceShownWhole(t *testing.T) {
	for _, kept := range []string{
		"token=${TOKEN}\n",
		"token=$TOKEN\n",
		"password: ${DB_PASSWORD}\n",
		"export PASSWORD=\"${PASSWORD}\"\n",
		"export API_KEY='$API_KEY'\n",
		"mycmd --token $GITHUB_TOKEN --verbose\n",
		"mycmd --password=${db_password} up\n",
		"  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n",
		"requirepass ${REDIS_PASSWORD}\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}

// What only looks like a reference is still masked: a default written in
// the reference (its value is a literal), a "$" that begins a password
// (a lower-case name is no environment variable's), a reference with
// text glued to it (before the fix "${PW}Zq7tail" showed Zq7tail: the
// "}" ended the value), and a reference never closed.
func TestS23VariableReferenceNearMissesMasked(t *testing.T) {
	for in, want := range map[string]string{
		"token=${TOKEN:-Zq7default}\n": "token=" + Mask + "\n",
		"password=$Zq7hunter\n":        "password=" + Mask + "\n",
		"password=${PW}Zq7tail\n":      "password=" + Mask + "\n",
		"password=Zq7head$PW\n":        "password=" + Mask + "\n",
		"password=\"${PW}Zq7tail\"\n":  "password=\"" + Mask + "\"\n",
		"password: ${Zq7 unclosed\n":   "password: " + Mask + " unclosed\n",
		"requirepass $Zq7foobared\n":   "requirepass " + Mask + "\n",
		"password=${PW:?Zq7message}\n": "password=" + Mask + "\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}
