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

// denyTouchBash is a real bash tool on the process engine behind an
// approval gate in allow_all with the deny rule BASH(touch *). run runs a
// command line through the executor; made reports (and removes) the file
// "pwned" a touch would make in the workspace.
func denyTouchBash(t *testing.T) (run func(cmd string) (*tool.Result, error), made func() bool) {
	t.Helper()
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
	run = func(cmd string) (*tool.Result, error) {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: args})
	}
	made = func() bool {
		f := filepath.Join(dir, "pwned")
		_, err := os.Stat(f)
		os.Remove(f)
		return err == nil
	}
	return run, made
}

// A deny rule holds for a command hidden after a harmless one, through a
// real bash tool: before, under allow_all, shell(touch *) let
// "echo ok; touch pwned" run, and the file was made.
func TestDenyRuleHoldsForACommandAfterAnotherThroughBash(t *testing.T) {
	run, made := denyTouchBash(t)
	for _, cmd := range []string{"echo ok; touch pwned", "echo $(touch pwned)", "true && (touch pwned)"} {
		res, err := run(cmd)
		require.Error(t, err, cmd)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, cmd)
		assert.False(t, made(), "%q ran: the file was made", cmd)
	}
	// The tool does run what no rule denies, and made sees its file.
	_, err := run("echo ok; echo x > pwned")
	assert.NoError(t, err)
	assert.True(t, made(), "an allowed line made no file")
}
