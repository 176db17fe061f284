package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS30SchemeCredentialEchoed: an Authorization value is masked
// whole ("Bearer <token>"), and SecretValues gave it whole, so a tool or
// server that echoed the token without its scheme ("invalid token
// <token>"), or a Basic credential's password decoded, kept it in the log
// line and the audit record's error: 4 of 4 echoes below were kept on the
// old code. Now the credentials alone, and a Basic credential's
// user:password and password, are values too.
func TestAttackS30SchemeCredentialEchoed(t *testing.T) {
	cases := []struct{ args, msg, secret string }{
		{`{"headers":{"Authorization":"Bearer Zx9kQ2mN7pL4abc"}}`, "401: invalid token Zx9kQ2mN7pL4abc", "Zx9kQ2mN7pL4abc"},
		{`{"headers":[["Authorization","token qwertyuiopasdf"]]}`, "bad credentials qwertyuiopasdf", "qwertyuiopasdf"},
		{`{"authorization":"Basic dXNlcjpodW50ZXJpc2g="}`, "password hunterish rejected for user", "hunterish"},
		{`{"authorization":"Basic dXNlcjpodW50ZXJpc2g"}`, "login user:hunterish failed", "hunterish"},
	}
	for _, c := range cases {
		got := Message(c.msg, nil, json.RawMessage(c.args))
		assert.NotContains(t, got, c.secret, "%s", c.args)
		assert.Contains(t, got, Mask, "%s", c.args)
	}
	// The scheme word alone, and ordinary words, stay.
	got := Message("use Bearer auth; Basic is refused", nil, json.RawMessage(`{"authorization":"Bearer Zx9kQ2mN7pL4abc"}`))
	assert.Equal(t, "use Bearer auth; Basic is refused", got)
}
