package approval_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// lineTool stands in for the bash tool: it judges its command line with
// the default classifier and records what it would run.
type lineTool struct {
	mu  sync.Mutex
	ran []string
}

func (l *lineTool) Spec() tool.Spec {
	return tool.Spec{Name: "sh", Description: "run a line", Risk: tool.RiskLow,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)}
}

func (l *lineTool) command(args json.RawMessage) string {
	var a struct{ Command string }
	_ = json.Unmarshal(args, &a)
	return a.Command
}

func (l *lineTool) Assess(args json.RawMessage) classify.Verdict {
	return classify.Classify(l.command(args))
}

func (l *lineTool) Run(_ context.Context, c tool.Call) (*tool.Result, error) {
	l.mu.Lock()
	l.ran = append(l.ran, l.command(c.Args))
	l.mu.Unlock()
	return &tool.Result{Content: []tool.Content{tool.TextContent("ok")}}, nil
}

// definition is a wrapper as the loader's go-type definitions are: its own
// spec (here one that calls the tool low risk, under another name) over
// the tool, which Unwrap exposes.
type definition struct {
	*lineTool
	name string
}

func (d definition) Spec() tool.Spec {
	s := d.lineTool.Spec()
	s.Name = d.name
	return s
}
func (d definition) Unwrap() tool.Tool { return d.lineTool }

func lineCall(name, session, command string) tool.Call {
	args, _ := json.Marshal(map[string]string{"command": command})
	return tool.Call{ID: "c", Name: name, Args: args, Session: session}
}

// DenyDangerous holds through the approval extension whatever the approver
// does and whatever the tool's spec says: a dangerous line is refused when
// the tool is behind a wrapper that calls itself low risk, when a reviewer
// writes it in place of a warning call's arguments, and after the session
// approved the tool for every call (ScopeSessionTool) on a warning line.
// Seen holding on the code of this commit: no change was needed.
func TestDenyDangerousHoldsThroughTheApprovalExtension(t *testing.T) {
	const dangerous, warning = "rm -rf build", "npm install"
	require.Equal(t, classify.Dangerous, classify.Classify(dangerous).Level)
	require.Equal(t, classify.Warning, classify.Classify(warning).Level)

	pol := approval.MustPolicy(approval.ModeAllowAll, approval.DenyDangerous(), approval.AlwaysApprove("sh", "wrapped"))
	build := func(t *testing.T, approver approval.Approver) (*executor.Executor, *lineTool) {
		lt := &lineTool{}
		reg := registry.New()
		reg.MustRegister(lt, definition{lt, "wrapped"})
		ext := approvalgate.New(approver, approvalgate.WithPolicy(pol), approvalgate.WithSessionMemory(16))
		return executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard())), lt
	}

	t.Run("wrapper", func(t *testing.T) {
		ex, lt := build(t, nil)
		res, err := ex.Execute(context.Background(), lineCall("wrapped", "s", dangerous))
		require.Error(t, err)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
		assert.Contains(t, res.Error.Message, "deny_dangerous")
		assert.Empty(t, lt.ran)
	})

	askAll := approval.MustPolicy(approval.ModeAlwaysAsk, approval.DenyDangerous())
	t.Run("modify", func(t *testing.T) {
		lt := &lineTool{}
		reg := registry.New()
		reg.MustRegister(lt)
		mod, _ := json.Marshal(map[string]string{"command": dangerous})
		ext := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Modified("reviewer", mod), nil
		}), approvalgate.WithPolicy(askAll))
		ex := executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard()))
		res, err := ex.Execute(context.Background(), lineCall("sh", "s", warning))
		require.Error(t, err)
		assert.Contains(t, res.Error.Message, "deny_dangerous")
		assert.Empty(t, lt.ran)
	})

	t.Run("session memory", func(t *testing.T) {
		lt := &lineTool{}
		reg := registry.New()
		reg.MustRegister(lt)
		asked := 0
		ext := approvalgate.New(approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			asked++
			return approval.Decision{Kind: approval.Approve, DecidedBy: "user", Scope: approval.ScopeSessionTool}, nil
		}), approvalgate.WithPolicy(askAll), approvalgate.WithSessionMemory(16))
		ex := executor.MustNew(reg, executor.WithExtensions(ext, ext.Guard()))
		res, err := ex.Execute(context.Background(), lineCall("sh", "s", warning))
		require.NoError(t, err)
		require.True(t, res.OK())
		for range 2 { // and its retry
			res, err = ex.Execute(context.Background(), lineCall("sh", "s", dangerous))
			require.Error(t, err)
			assert.Contains(t, res.Error.Message, "deny_dangerous")
		}
		assert.Equal(t, []string{warning}, lt.ran)
		assert.Equal(t, 1, asked)
	})
}
