package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The findings of the records issue: each was kept in plain text by the
// old rule.
func TestOneRuleNames(t *testing.T) {
	for _, name := range []string{
		"Cookie", "cookie", "Set-Cookie", "auth", "Auth", "x-auth", "pwd", "db_pwd", "dsn", "DATABASE_DSN",
		"ssh_key", "sshKey", "session", "session_id", "private_key", "privateKey", "api_key", "apiKey", "x-api-key",
		"access_key", "secret_key", "signing_key", "password", "dbPassword", "passphrase", "credentials",
		"access_token", "refreshToken", "githubtoken", "Authorization", "Proxy-Authorization",
	} {
		assert.True(t, LooksSecret(name), "%q should look secret", name)
	}
	for _, name := range []string{"max_tokens", "token_count", "author", "keyboard", "monkey", "key", "path", "query", "user", "tokens_used", "passenger"} {
		assert.False(t, LooksSecret(name), "%q should not look secret", name)
	}
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "NPM_PASS", "SIGNING_CERT", "GPG_SIGNATURE", "PGPASSWORD", "SSH_AUTH_SOCK", "MY_SESSION", "HTTP_COOKIE"} {
		assert.True(t, LooksSecretEnv(name), "env %q should look secret", name)
	}
	for _, name := range []string{"HOME", "LANG", "PATH", "GOPATH", "TERM", "GIT_AUTHOR_NAME"} {
		assert.False(t, LooksSecretEnv(name), "env %q should not look secret", name)
	}
}

func TestOneRuleStrings(t *testing.T) {
	cases := []struct{ in, keep, gone string }{
		{"curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig' https://api.example.com", "curl -H 'Authorization: ", "eyJhbGciOiJIUzI1NiJ9"},
		{`curl -H "Cookie: session=abc123; theme=dark" http://x`, `curl -H "Cookie: `, "abc123"},
		{"psql postgres://app:hunter2@db.internal:5432/app", "postgres://app:", "hunter2"},
		{"git clone https://bob:ghp_0123456789abcdef0123456789abcdefABCD@github.com/x/y", "https://bob:", "ghp_0123456789"},
		{"export GITHUB=ghp_0123456789abcdef0123456789abcdefABCD", "export GITHUB=", "ghp_0123456789abcdef"},
		{"key AKIAIOSFODNN7EXAMPLE in use", "key ", "AKIAIOSFODNN7EXAMPLE"},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "OPENAI_API_KEY=", "sk-proj-abcdefghijklmnopqrstuvwxyz"},
		{"using sk-ant-api03-abcdefghijklmnopqrstuvwxyz-0123456789 now", "using ", "sk-ant-api03-abcdefghijklm"},
		{"slack xoxb-123456789012-abcdefghijkl", "slack ", "xoxb-123456789012"},
		{"PGPASSWORD=s3cret psql -h db", " psql -h db", "s3cret"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\nafter", "after", "b3BlbnNzaC1rZXktdjE="},
		{"Basic dXNlcjpwYXNzd29yZA== sent", " sent", "dXNlcjpwYXNzd29yZA=="},
	}
	for _, c := range cases {
		got := String(c.in)
		assert.Contains(t, got, Mask, c.in)
		assert.Contains(t, got, c.keep, "the rest stays readable: %q", got)
		assert.NotContains(t, got, c.gone, "the secret is gone: %q", got)
	}
	for _, plain := range []string{"ls -la", "x=1 y=2", "https://example.com/path?q=1", "go test ./...", "a basic idea"} {
		assert.Equal(t, plain, String(plain), "nothing secret, nothing changed")
	}
}

// Secrets inside string values of arguments whose keys say nothing: the
// command text of a shell call, a URL.
func TestArgsStringValues(t *testing.T) {
	in := json.RawMessage(`{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop' https://x","url":"https://u:p4ssw0rd@host/x","n":1}`)
	out := string(Args(in, nil))
	assert.True(t, json.Valid([]byte(out)), out)
	assert.NotContains(t, out, "abcdefghijklmnop")
	assert.NotContains(t, out, "p4ssw0rd")
	assert.Contains(t, out, `"n":1`)
	assert.True(t, strings.Contains(out, "curl -H"), out)
	plain := json.RawMessage(`{"command":"ls -la","n":1}`)
	assert.Equal(t, string(plain), string(Args(plain, nil)), "no copy when nothing is secret")
}
