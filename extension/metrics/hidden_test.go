package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call of a tool hidden from its principal is answered not_found, as a
// name no tool has; the metrics, an operator's record outside auth, count
// it as auth refused it: under the tool's name, denied, unauthorized. A
// name no tool has is counted under UnknownTool. docs/extensions.md says
// so: the metrics tell hidden tools from none, and are not for principals.
func TestHiddenToolCallIsCountedAsAuthRefusedIt(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("purge_backups", "Purge the backups", func(context.Context, struct{}) (string, error) { return "purged", nil }))
	m := metrics.New()
	ex := executor.MustNew(reg, executor.WithExtensions(m, auth.New(auth.Allow("ops", "purge_backups"))))
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	hidden, _ := ex.Execute(context.Background(), tool.Call{Name: "purge_backups", Args: json.RawMessage(`{}`), Principal: bob})
	unknown, _ := ex.Execute(context.Background(), tool.Call{Name: "purge_backupz", Args: json.RawMessage(`{}`), Principal: bob})
	require.NotNil(t, hidden.Error)
	require.NotNil(t, unknown.Error)
	assert.Equal(t, tool.CodeNotFound, hidden.Error.Code, "bob is answered as for a name no tool has")
	assert.Equal(t, tool.CodeNotFound, unknown.Error.Code)

	snap := m.Snapshot()
	assert.Equal(t, map[tool.Code]uint64{tool.CodeUnauthorized: 1}, snap.Tools["purge_backups"].Errors)
	assert.Equal(t, uint64(1), snap.Calls("purge_backups", tool.StatusDenied))
	assert.Equal(t, map[tool.Code]uint64{tool.CodeNotFound: 1}, snap.Tools[metrics.UnknownTool].Errors)
}
