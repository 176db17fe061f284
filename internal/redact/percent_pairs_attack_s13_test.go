package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A URL carried inside another URL's query (a login's next= or return=,
// an OAuth redirect_uri, a tracking link) has its own query
// percent-encoded: ?next=%2Fcb%3Faccess_token%3D…. Its name=value pairs
// were not read, since their "=" is %3D, so the token stayed whole in an
// error message, a result or an argument that quoted the link.
func TestAttackPercentEncodedQueryPairs(t *testing.T) {
	for _, c := range []struct{ in, keep string }{
		{"https://app/login?next=%2Fcb%3Faccess_token%3Dhunter2abc%26page%3D2", "%26page%3D2"},
		{"redirect_uri=https%3A%2F%2Fx.example%2Fcb%3Fstate%3D1%26token%3Dhunter2abc", "state%3D1"},
		{"GET /r?u=https%3a%2f%2fx%2f%3fpassword%3dhunter2abc%26lang%3den", "%26lang%3den"},
		{"https://t.example/c?url=https%3A%2F%2Fapi.example%2Fv1%3Fkey%3Dhunter2abc", "https%3A%2F%2Fapi.example"},
		{"https://t.example/c?url=https%3A%2F%2Fapi.example%2Fv1%3Fx%3D1%26sig%3Dhunter2abc", "x%3D1"},
		{"return=%2Fhome%3Fclient_secret%3Dhunter2abc", "return=%2Fhome"},
	} {
		got := String(c.in)
		assert.NotContains(t, got, "hunter2abc", "%q -> %q", c.in, got)
		assert.Contains(t, got, Mask, "%q -> %q", c.in, got)
		assert.Contains(t, got, c.keep, "the rest stays: %q -> %q", c.in, got)
		args, err := json.Marshal(map[string]string{"url": c.in})
		require.NoError(t, err)
		assert.NotContains(t, string(Args(args, nil)), "hunter2abc", c.in)
	}
	for _, plain := range []string{
		"https://app/login?next=%2Fcb%3Fpage%3D2%26q%3Dgo", "a%3Db", "https://x/?q=100%25%3D1",
		"https://x/?key=ok%3Dnot", // the value of key is masked below, not here
	} {
		if plain == "https://x/?key=ok%3Dnot" {
			assert.NotContains(t, String(plain), "ok%3Dnot")
			continue
		}
		assert.Equal(t, plain, String(plain))
	}
}
