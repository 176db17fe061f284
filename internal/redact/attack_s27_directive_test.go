package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A line of two words whose first is secret or token alone is prose
// ("secret santa", "token ring") unless its second looks like a
// credential: before the fix it was read as a configuration directive
// and its second word masked ("secret [REDACTED]").
func TestS27SecretNounLineKept(t *testing.T) {
	for _, kept := range []string{
		"secret santa",
		"Secret Santa\n",
		"secret sauce\n",
		"token ring\n",
		"Token bucket\n",
		"SECRET SANTA\n",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}

// A directive of secret or token whose value looks like a credential, or
// is quoted, stays masked, as does a password's whatever it reads like
// (msmtprc's "password pw").
func TestS27SecretNounDirectiveMasked(t *testing.T) {
	for in, want := range map[string]string{
		"secret Zq7s3cr3t\n":       "secret " + Mask + "\n",
		"token abc123def456\n":     "token " + Mask + "\n",
		"secret \"santa\"\n":       "secret \"" + Mask + "\"\n",
		"password santa\n":         "password " + Mask + "\n",
		"requirepass foobared\n":   "requirepass " + Mask + "\n",
		"api_token santaclaus\n":   "api_token " + Mask + "\n",
		"client_secret sauce\n":    "client_secret " + Mask + "\n",
		"secret S3cr3t!\n":         "secret " + Mask + "\n",
		"     3\ttoken a1b2c3d4\n": "     3\ttoken " + Mask + "\n",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}
