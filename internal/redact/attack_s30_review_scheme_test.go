package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS30ReviewSchemeCredentialShapes: 600e6e2 gave a scheme's
// credentials alone, and a Basic credential decoded, only of a value that
// is the whole header value with a space after the scheme, so the echo
// of the token or decoded password was kept where the header was written
// otherwise: a tab after the scheme, a Basic credential's base64 in the
// URL-safe alphabet or with padding it does not need, and (most of all)
// the header inside a command or a header line ("curl -H 'Authorization:
// Basic ...'"), where the rule masks, and SecretValues gives, the
// credential's base64 alone.
func TestAttackS30ReviewSchemeCredentialShapes(t *testing.T) {
	cases := []struct{ args, msg, secret string }{
		{`{"headers":{"Authorization":"Bearer\tZx9kQ2mN7pL4abc"}}`, "401: invalid token Zx9kQ2mN7pL4abc", "Zx9kQ2mN7pL4abc"},
		{`{"authorization":"Basic\tdXNlcjpodW50ZXJpc2g="}`, "password hunterish rejected", "hunterish"},
		{`{"authorization":"Basic dXNlcjpodW50ZXJpc2g=="}`, "password hunterish rejected", "hunterish"},
		{`{"authorization":"Basic dXNlcjpodW50ZXI_Pz8"}`, "password hunter??? rejected", "hunter???"},
		{`{"command":"curl -H 'Authorization: Basic dXNlcjpodW50ZXJpc2g=' https://x"}`, "password hunterish rejected", "hunterish"},
		{`{"headers":["Authorization: Basic dXNlcjpodW50ZXJpc2g="]}`, "login user:hunterish failed", "hunterish"},
	}
	for _, c := range cases {
		got := Message(c.msg, nil, json.RawMessage(c.args))
		assert.NotContains(t, got, c.secret, "%s", c.args)
		assert.Contains(t, got, Mask, "%s", c.args)
	}
	// A value that is base64 of no credential gives nothing more, and
	// ordinary text stays.
	got := Message("user admin: ok", nil, json.RawMessage(`{"token":"dXNlcjpodW50ZXJpc2g"}`))
	assert.Equal(t, "user admin: ok", got)
}
