package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An object's keys were judged by their name only: a secret written as a
// key went whole into the record. A tool's output that maps remotes to
// their state ({"https://x-access-token:ghs_…@github.com/o/r": "ok"}), a
// token cache keyed by token, a header line used as a key: the string
// rule's secrets are masked in keys as in values, the rest of the key
// kept, in arguments, in structured output and in JSON inside a string.
func TestAttackS26SecretsInKeys(t *testing.T) {
	for _, tc := range []struct{ name, in, secret string }{
		{"URL password", `{"remotes":{"https://bob:hunter2xyz@git.example.com/o/r":"ok"}}`, "hunter2xyz"},
		{"token as a key", `{"tokens":{"ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA12":{"scopes":["repo"]}}}`, "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"},
		{"header line as a key", `{"Authorization: Bearer hunter2xyzabc":1}`, "hunter2xyzabc"},
		{"pair as a key", `{"m":{"password=hunter2xyz":1}}`, "hunter2xyz"},
		{"short pair as a key", `{"m":{"pwd=hunter2x":1}}`, "hunter2x"},
		{"in JSON inside a string", `{"body":"{\"https://bob:hunter2xyz@h/\":1}"}`, "hunter2xyz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Args(json.RawMessage(tc.in), nil)
			require.True(t, json.Valid(got), "%s", got)
			assert.NotContains(t, string(got), tc.secret)
			assert.Contains(t, string(got), Mask)
			out := Output(json.RawMessage(tc.in), nil, json.RawMessage(`{}`))
			assert.NotContains(t, string(out), tc.secret)
			found := false
			for _, v := range SecretValues(json.RawMessage(tc.in), nil) {
				found = found || strings.Contains(v, tc.secret)
			}
			assert.True(t, found, "an echo of it is masked too")
		})
	}
	// What the key says besides the secret is kept.
	assert.JSONEq(t, `{"remotes":{"https://bob:`+Mask+`@git.example.com/o/r":"ok"}}`,
		string(Args(json.RawMessage(`{"remotes":{"https://bob:hunter2xyz@git.example.com/o/r":"ok"}}`), nil)))
	// Keys with nothing to hide cost nothing: the arguments come back as they were.
	in := json.RawMessage(`{"https://git.example.com/o/r":{"password_hint":null}}`)
	assert.Equal(t, string(in), string(Args(in, nil)))
}
