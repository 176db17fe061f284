package approvalgate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A deny rule holds for a command hidden after a harmless one, through a
// real bash tool: before, under allow_all, shell(touch *) let
// "echo ok; touch pwned" run, and the file was made.
func TestDenyRuleHoldsForACommandAfterAnotherThroughBash(t *testing.T) {
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second}))
	require.NoError(t, err)
	b, err := shell.NewBash(sb, ws)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(b))
	name := b.Spec().Name
	pol := approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules(name+"(touch *)"))
	gate := approvalgate.New(fixed(approval.Approved("nobody")), approvalgate.WithPolicy(pol))
	ex := executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard()))
	for _, cmd := range []string{"echo ok; touch pwned", "echo $(touch pwned)", "true && (touch pwned)"} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
		require.Error(t, err, cmd)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, cmd)
		_, statErr := os.Stat(filepath.Join(dir, "pwned"))
		assert.True(t, os.IsNotExist(statErr), "%q ran: the file was made", cmd)
	}
	args, _ := json.Marshal(map[string]string{"command": "echo ok; ls"})
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
	assert.NoError(t, err)
}
