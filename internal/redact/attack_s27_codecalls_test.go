package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Credentials written in code a tool prints or an agent writes: a header
// set by a call with the name and the value as two quoted arguments, and
// basic auth's user and password as two. The rule knew JSON's
// ["X-Api-Key", "..."] and a header's "Name: value", not a call's
// ("Name", "value").
func TestAttackS27CredentialsInCodeCalls(t *testing.T) {
	for in, want := range map[string]string{
		`req.Header.Set("Authorization", "Token abc123def456ghi")`: `req.Header.Set("Authorization", "Token ` + Mask + `")`,
		`req.Header.Set("X-Api-Key", "Zq7abc123def")`:              `req.Header.Set("X-Api-Key", "` + Mask + `")`,
		`xhr.setRequestHeader('X-Auth-Token', 'Zq7abc123def');`:    `xhr.setRequestHeader('X-Auth-Token', '` + Mask + `');`,
		`conn.putheader("Authorization", "ApiKey Zq7abc123def")`:   `conn.putheader("Authorization", "ApiKey ` + Mask + `")`,
		`req.SetBasicAuth("bob", "Zq7s3cret")`:                     `req.SetBasicAuth("bob", "` + Mask + `")`,
		// A secret name's tuple or call is masked whole, as its array is
		// (before, maskPairs masked "(" and kept the password after it).
		`requests.get(url, auth=('bob', 'Zq7s3cret'))`:           `requests.get(url, auth=` + Mask + `)`,
		`requests.get(url, auth=HTTPBasicAuth("bob", "hunter"))`: `requests.get(url, auth=` + Mask + `)`,
		`requests.get(url, auth=(user, password))`:               `requests.get(url, auth=` + Mask + `)`,
		`x = HTTPBasicAuth("bob", "hunter")`:                     `x = HTTPBasicAuth("bob", "` + Mask + `")`,
		`client.basic_auth('bob', 'hunter')`:                     `client.basic_auth('bob', '` + Mask + `')`,
		`os.environ.setdefault("DB_PASSWORD", "Zq7s3cret")`:      `os.environ.setdefault("DB_PASSWORD", "` + Mask + `")`,
		`os.Setenv("GITHUB_TOKEN", "Zq7abc123def")`:              `os.Setenv("GITHUB_TOKEN", "` + Mask + `")`,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Calls whose second argument is a message, a word, a variable or empty
// keep it.
func TestS27CodeCallsKept(t *testing.T) {
	for _, kept := range []string{
		`form.addError("password", "Password must be at least 8 characters")`,
		`errors.Add("password", "is required")`,
		`req.Header.Set("Authorization", "")`,
		`req.Header.Set("Accept", "application/json")`,
		`t.Run("token", "abc")`,
		`log.Printf("token", "expired")`,
		`req.SetBasicAuth(user, pass)`,
		`req.SetBasicAuth("bob", "")`,
		`os.Setenv("GITHUB_TOKEN", os.Getenv("X"))`,
		"\t\tcase \"Authorization\", \"Www-Authenticate\", \"Cookie\", \"Cookie2\",", // net/http's source
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
