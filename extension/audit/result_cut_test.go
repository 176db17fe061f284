package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A record reads a result's text past its cap by a slack, to redact before
// it cuts; that read is cut where a character starts (textcut), as the
// record's own cut is. It was cut at a byte, and when redaction then made
// the text shorter than the cap (a long secret echoed), no second cut
// followed and the record kept the split character's first byte (written
// as U+FFFD).
func TestResultTextReadPastTheCapKeepsCharactersWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path, audit.WithResults(100))
	require.NoError(t, err)
	secret := strings.Repeat("k", 4150)
	reg := registry.New()
	reg.MustRegister(tool.New("echo", "Echoes", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		var in struct {
			Key string `json:"key"`
		}
		if err := json.Unmarshal(c.Args, &in); err != nil {
			return nil, err
		}
		// 10 + 4150 + 200 bytes: the read of cap+slack+1 = 4197 bytes
		// ends inside the 19th "é".
		return &tool.Result{Content: []tool.Content{tool.TextContent("aaaaaaaaaa" + in.Key + strings.Repeat("é", 100))}}, nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)), tool.WithSecrets("key")))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args, err := json.Marshal(map[string]string{"key": secret})
	require.NoError(t, err)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "echo", Args: args})
	require.NoError(t, err)
	require.NoError(t, trail.Close())

	var out *audit.Result
	for _, r := range readRecords(t, path) {
		if r.Kind == audit.KindOutcome {
			out = r.Result
		}
	}
	require.NotNil(t, out)
	assert.NotContains(t, out.Text, secret)
	assert.NotContains(t, out.Text, "\uFFFD", "a character was split")
	// What the read took past the secret, unmasked, is dropped with the
	// rest of the slack redaction left as it was: it could have been the
	// start of another secret (TestAttackS26ResultReadEndKeepsNoPartOfASecret).
	assert.Equal(t, "aaaaaaaaaa[REDACTED]", out.Text)
	assert.True(t, out.Truncated)
}
