package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

func TestRefusedCallsAreRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	f := newFixture(t, trail)
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "alice"})
	_, err = f.ex.Execute(ctx, tool.Call{ID: "u1", Name: "depoly", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	_, err = f.ex.Execute(ctx, tool.Call{ID: "u2", Name: "deploy", Args: json.RawMessage(`{"env":5,"token":"` + secretValue + `"}`)})
	require.Error(t, err)
	require.NoError(t, trail.Close())

	recs := readRecords(t, path)
	require.Len(t, recs, 2, "one record per refused call")
	assert.Equal(t, audit.KindRefused, recs[0].Kind)
	assert.Equal(t, "depoly", recs[0].Tool)
	assert.Equal(t, "not_found", recs[0].ErrorCode)
	assert.Equal(t, "alice", recs[0].Principal)
	assert.Equal(t, "invalid_arguments", recs[1].ErrorCode)
	assert.Equal(t, "high", recs[1].Risk)
	assert.False(t, strings.Contains(string(recs[1].Args), secretValue), "secrets are redacted in refused records too")
	assert.Zero(t, f.runs.Load())
	rep, err := audit.Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Records)
}

// The records issue found a Cookie header and a bearer token kept in plain
// text: in arguments under keys that say nothing, and in error messages.
func TestSecretsInsideStringsAreRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	reg := registry.New()
	reg.MustRegister(tool.Func("fetch", "Fetch", func(_ context.Context, in struct {
		Command string `json:"command"`
		Cookie  string `json:"cookie"`
		DSN     string `json:"dsn"`
		SSHKey  string `json:"ssh_key"`
	}) (string, error) {
		return "", fmt.Errorf("connect %s: refused", in.DSN)
	}))
	ex := executor.MustNew(reg, executor.WithExtensions(trail))
	args := `{"command":"curl -H 'Authorization: Bearer tok-0123456789abcdef' http://x","cookie":"sid=abc","dsn":"postgres://app:hunter2@db/app","ssh_key":"AAAAB3Nza"}`
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "fetch", Args: json.RawMessage(args)})
	require.NoError(t, trail.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, secret := range []string{"tok-0123456789abcdef", "sid=abc", "hunter2", "AAAAB3Nza"} {
		assert.NotContains(t, string(raw), secret)
	}
	assert.Contains(t, string(raw), "curl -H", "the command stays readable")
}
