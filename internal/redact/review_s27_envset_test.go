package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// setx is a cmd.exe command, where a variable is read as %NAME%: setting
// a secret's name from another variable carries no secret, as fish's
// set -gx NAME $OTHER does not, and stays as written. A literal value is
// still masked.
func TestS27SetxFromAVariableKept(t *testing.T) {
	for _, kept := range []string{
		"setx API_KEY %API_KEY%",
		`setx GITHUB_TOKEN "%GH_TOKEN%"`,
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
	for _, s := range []string{"setx API_KEY s3cr3t-v4lue-123", "setx API_KEY %s3cr3t-v4lue-123", "setx API_KEY %a%b%"} {
		assert.NotContains(t, String(s), "s3cr3t", "%q", s)
		assert.Contains(t, String(s), Mask, "%q", s)
	}
}
