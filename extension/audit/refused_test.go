package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
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
