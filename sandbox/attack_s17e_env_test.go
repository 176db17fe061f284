package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// s17eSecretValues are host variables whose names say nothing of a secret
// while their values are one: a database URL with its password, a proxy's
// credentials, a provider's API key and a private key kept under ordinary
// names. A program that lets the host's environment through by pattern
// (WithEnv("*"), WithEnv("APP_*")) counts on LooksSecret to keep secrets
// back, and LooksSecret judges only the name.
var s17eSecretValues = map[string]string{
	"S17E_DATABASE_URL": "postgres://app:hunter2-s17e@db.internal:5432/prod",
	"S17E_HTTPS_PROXY":  "http://svc:pr0xy-s17e-pass@proxy.corp:3128",
	"S17E_REDIS":        "redis://:r3dis-s17e-pass@cache:6379/0",
	"S17E_OPENAI":       "sk-proj-s17eAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	"S17E_GITHUB":       "ghp_s17eAbCdEfGhIjKlMnOpQrStUvWxYz012345",
	"S17E_SIGNER":       "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAs17e\n-----END OPENSSH PRIVATE KEY-----",
}

// TestAttackS17EEnvPatternPassesSecretValues runs env through every engine
// with the host's environment allowed by pattern: no value above may reach
// the command, while ordinary variables still do, and a secret named
// exactly in the allow list still does (the program asked for it).
func TestAttackS17EEnvPatternPassesSecretValues(t *testing.T) {
	for k, v := range s17eSecretValues {
		t.Setenv(k, v)
	}
	t.Setenv("S17E_REGION", "eu-west-1")
	t.Setenv("S17E_DOCS_URL", "https://docs.example.com/a?b=c")
	t.Setenv("S17E_EXACT_URL", "postgres://app:exact-s17e@db/prod")
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			for _, allow := range [][]string{{"*"}, {"S17E_*"}} {
				sb := engine(t, name, WithWorkspace(ws), WithEnv(append(allow, "S17E_EXACT_URL")...))
				out := mustRun(t, sb, Spec{Argv: []string{"env"}})
				env := string(out.Stdout)
				for k, v := range s17eSecretValues {
					secret := v
					if i := strings.Index(v, "s17e"); i >= 0 {
						secret = v[i:min(len(v), i+12)]
					}
					assert.NotContains(t, env, secret, "%s (allowed by %q) reached the command", k, allow)
				}
				assert.Contains(t, env, "S17E_REGION=eu-west-1\n", "allow %q", allow)
				assert.Contains(t, env, "S17E_DOCS_URL=https://docs.example.com/a?b=c\n", "allow %q", allow)
				assert.Contains(t, env, "S17E_EXACT_URL=postgres://app:exact-s17e@db/prod\n", "allow %q", allow)
			}
		})
	}
}
