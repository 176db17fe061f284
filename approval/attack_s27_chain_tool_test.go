package approval

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// rmTool is a tool whose Assessor calls a command line with "rm" in it
// dangerous and anything else safe, and whose Subject is its command.
type rmTool struct{}

func (rmTool) Spec() tool.Spec { return tool.Spec{Name: "bash", Risk: tool.RiskLow} }
func (rmTool) Run(context.Context, tool.Call) (*tool.Result, error) {
	return &tool.Result{}, nil
}
func (rmTool) command(args json.RawMessage) string {
	var in struct{ Command string }
	_ = json.Unmarshal(args, &in)
	return in.Command
}
func (t rmTool) Subject(args json.RawMessage) string { return "sh: " + t.command(args) }
func (t rmTool) Assess(args json.RawMessage) classify.Verdict {
	if strings.Contains(t.command(args), "rm") {
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{"removes files"}}
	}
	return classify.Verdict{Level: classify.Safe}
}

// A policy in a chain is handed the called tool (Request.Tool): it judges
// the call with the tool's Subject, as the approval extension's policy
// does, and a Unanimous chain assesses a modification with the tool's
// Assessor.
func TestS27ChainPolicyAndUnanimousUseTheRequestsTool(t *testing.T) {
	ctx := context.Background()
	req := Request{
		Call:    tool.Call{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"ls"}`)},
		Spec:    rmTool{}.Spec(),
		Tool:    rmTool{},
		Level:   classify.Safe,
		Subject: "sh: ls",
	}
	// The rule speaks of the tool's own Subject, which the argument
	// fields alone do not give.
	p := MustPolicy(ModeAuto, AskRules("bash(sh: *)"))
	d, err := p.Approve(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, Abstain, d.Kind, "the chain's policy did not see the tool's subject: %+v", d)

	editor := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Modified("editor", json.RawMessage(`{"command":"rm -rf ~"}`)), nil
	})
	var seen Request
	second := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		seen = r
		return Approved("bob"), nil
	})
	_, err = Unanimous(editor, second).Approve(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, classify.Dangerous, seen.Level)
	assert.Equal(t, []string{"removes files"}, seen.Reasons)
	assert.Equal(t, "sh: rm -rf ~", seen.Subject)

	// A harmless edit, assessed with the tool, stays safe.
	tidy := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Modified("editor", json.RawMessage(`{"command":"ls -l"}`)), nil
	})
	_, err = Unanimous(tidy, second).Approve(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, classify.Safe, seen.Level)
	assert.Equal(t, "sh: ls -l", seen.Subject)
}
