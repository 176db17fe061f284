package policy_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// execRaw runs a call from any goroutine (the executor's result is never
// nil).
func execRaw(ex *executor.Executor, name, args string) *tool.Result {
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: []byte(args)})
	return res
}

// A write that waits for a person's approval in alert, while the operator
// switches to lockdown, where write_file is forbidden. The person approves
// what was asked in alert; the call must not then write in lockdown.
func TestLockdownDuringApprovalWaitStopsTheCall(t *testing.T) {
	p, err := policy.Parse([]byte(`
global: {mode: alert}
tools:
  write_file:
    allowed_in_modes: [normal]
    requires_approval_in_modes: [alert]
    forbidden_in_modes: [lockdown]
`))
	require.NoError(t, err)
	dir := t.TempDir()
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	reg := registry.New()
	require.NoError(t, reg.Register(builtin.Files(ws)...))
	asked, decide := make(chan struct{}), make(chan struct{})
	// A person who clicks "approve" whatever happened meanwhile.
	human := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		close(asked)
		<-decide
		return approval.Approved("operator"), nil
	})
	ax := approvalgate.New(human)
	ex := executor.MustNew(reg, executor.WithExtensions(p, ax, ax.Guard()))

	done := make(chan *tool.Result, 1)
	go func() {
		done <- execRaw(ex, "write_file", `{"path": "out.txt", "content": "written in lockdown"}`)
	}()
	<-asked
	require.NoError(t, p.SetMode(tool.ModeLockdown))
	close(decide)
	res := <-done
	require.NotNil(t, res.Error, "the call ran in lockdown: %s", resultText(res))
	assert.NoFileExists(t, filepath.Join(dir, "out.txt"))
	assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
	assert.Contains(t, res.Error.Message, "forbidden in mode lockdown")
	assert.Equal(t, "tools.write_file.forbidden_in_modes", res.Metadata[policy.MetaRule])
	assert.Equal(t, tool.ModeLockdown, res.Metadata[policy.MetaMode])
}

// A running call of a tool the new mode refuses has its context
// cancelled; a call of a tool the new mode allows runs on.
func TestModeChangeStopsRunningCallsItRefuses(t *testing.T) {
	p, err := policy.Parse([]byte(`
tools:
  deploy: {forbidden_in_modes: [lockdown]}
`))
	require.NoError(t, err)
	started := make(chan string, 3)
	release := make(chan struct{})
	wait := func(name string) func(context.Context, struct{}) (string, error) {
		return func(ctx context.Context, _ struct{}) (string, error) {
			started <- name
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-release:
				return "done", nil
			}
		}
	}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("deploy", "Deploy", wait("deploy")),
		tool.Func("status", "Status", wait("status")),
		tool.Func("normal_only", "Runs in normal only", wait("normal_only"), tool.WithModes(tool.ModeNormal)),
	)
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	results := map[string]chan *tool.Result{}
	for _, name := range []string{"deploy", "status", "normal_only"} {
		ch := make(chan *tool.Result, 1)
		results[name] = ch
		go func() { ch <- execRaw(ex, name, `{}`) }()
	}
	for range 3 {
		<-started
	}
	require.NoError(t, p.SetMode(tool.ModeLockdown))
	for name, rule := range map[string]string{"deploy": "tools.deploy.forbidden_in_modes", "normal_only": "spec.allowed_modes"} {
		res := <-results[name]
		require.NotNil(t, res.Error, "%s ran on in lockdown", name)
		assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%s: %v", name, res.Error)
		assert.Equal(t, rule, res.Metadata[policy.MetaRule], name)
		assert.Contains(t, res.Error.Message, "the mode changed while the call was in progress")
	}
	close(release)
	res := <-results["status"]
	assert.Nil(t, res.Error, "status has no mode rule: it runs on")
	assert.Equal(t, "done", res.Text())
}
