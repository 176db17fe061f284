package audit_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A refused call reported with an error and a status that claims success
// (executor.ReportRefused takes the caller's result) is recorded with the
// error's status (tool.Result.SettledStatus), as an outcome record is.
func TestRefusedRecordHasTheSettledStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	trail, err := audit.Open(path)
	require.NoError(t, err)
	f := newFixture(t, trail)
	call := tool.Call{ID: "r1", Name: "undeclared", Args: json.RawMessage(`{}`)}
	f.ex.ReportRefused(context.Background(), &call, &tool.Result{Status: tool.StatusSucceeded, Error: tool.NewError(tool.CodeNotFound, "the agent did not declare it")})
	require.NoError(t, trail.Close())

	recs := readRecords(t, path)
	require.Len(t, recs, 1)
	assert.Equal(t, audit.KindRefused, recs[0].Kind)
	assert.Equal(t, "not_found", recs[0].ErrorCode)
	assert.Equal(t, string(tool.StatusFailed), recs[0].Status)
}
