package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A personal access token is kept in an environment variable named for it:
// GitHub's docs log in to its container registry with $CR_PAT, the Azure
// DevOps CLI reads AZURE_DEVOPS_EXT_PAT, and GH_PAT and GITHUB_PAT are
// common in CI. An Azure DevOps token has no prefix a shape rule knows,
// and an environment dump (env, printenv, docker inspect, a CI log) put it
// whole into records, as did an "env" object of a tool's arguments.
func TestAttackS26AccessTokenEnvironmentNames(t *testing.T) {
	const token = "k3x7q2m9w4z8r1t6y5u0p3s8d2f7g1h4j9l6c5v0b8n2"
	for _, name := range []string{"CR_PAT", "AZURE_DEVOPS_EXT_PAT", "GH_PAT", "GITHUB_PAT", "ADO_PAT2"} {
		for _, text := range []string{
			"export " + name + "=" + token,
			name + "=" + token + " ./deploy.sh",
			name + ": " + token,
		} {
			got := Message(text, nil)
			assert.NotContains(t, got, token, "in %q", text)
		}
		args, _ := json.Marshal(map[string]map[string]string{"env": {name: token}})
		assert.NotContains(t, string(Args(args, nil)), token, name)
		assert.True(t, LooksSecretEnv(name), name)
	}
	// Names that only begin like it stay.
	for _, name := range []string{"PATH", "PATCH_LEVEL", "PATTERN", "GOPATH", "PAT_COUNT_LIMIT"} {
		assert.False(t, LooksSecretEnv(name), name)
	}
}
