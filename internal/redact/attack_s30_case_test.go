package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS30EchoInAnotherCase: Scrub found a call's secret value only
// as it was spelt, so a tool that echoed it upper- or lower-cased (a
// license or product key normalized, a case-insensitive system's error,
// SQL folding an unquoted word) kept it in the log line and the audit
// record: 6 of 6 echoes below were kept on the old code. Now values are
// found in any mix of ASCII case, escaped or percent-encoded too.
func TestAttackS30EchoInAnotherCase(t *testing.T) {
	args := json.RawMessage(`{"password":"HunterIsh42","license_key":"ab12-cd34-ef56","token":"Zx9kQ2mN7pL4"}`)
	for _, msg := range []string{
		"login failed for hunterish42",
		"login failed for HUNTERISH42",
		"license key AB12-CD34-EF56 is not valid",
		"bad token zx9kq2mn7pl4",
		`{"error":"token ZX9KQ2MN7P\u004c4 expired"}`,
		"pw=HUNTER%49SH42",
	} {
		got := Message(msg, nil, args)
		assert.NotContains(t, got, "ISH42", msg)
		assert.NotContains(t, got, "ish42", msg)
		assert.NotContains(t, got, "EF56", msg)
		assert.NotContains(t, got, "mn7pl4", msg)
		assert.NotContains(t, got, "MN7P", msg)
		assert.Contains(t, got, Mask, msg)
	}
	// Other text is kept as it is spelt.
	assert.Equal(t, "Hello World, "+Mask+" HERE", Scrub("Hello World, HUNTERISH42 HERE", []string{"HunterIsh42"}))
}
