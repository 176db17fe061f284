package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// In a Unanimous chain, a modification is passed on: the approvers after
// it judge the modified arguments. They were handed them under the
// assessment of the model's arguments: "ls", safe, while the arguments now
// said "rm -rf ~". A policy that refuses dangerous calls approved the
// modification as safe, and a second person was shown "Subject: ls,
// Danger: safe" above the new arguments.
func TestAttackS27UnanimousJudgesAModificationByTheOldAssessment(t *testing.T) {
	ctx := context.Background()
	req := Request{
		Call:    tool.Call{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"ls"}`), Session: "s"},
		Spec:    tool.Spec{Name: "bash", Risk: tool.RiskHigh},
		Level:   classify.Safe,
		Reasons: []string{"ls lists files"},
		Subject: "ls",
	}
	editor := ApproverFunc(func(context.Context, Request) (Decision, error) {
		return Modified("editor", json.RawMessage(`{"command":"rm -rf ~"}`)), nil
	})

	strict := MustPolicy(ModeAuto, DenyDangerous())
	d, err := Unanimous(editor, strict).Approve(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind, "a policy refusing dangerous calls let a modification it could not assess run, judged on the model's safe call")

	var seen Request
	second := ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
		seen = r
		return Approved("bob"), nil
	})
	_, err = Unanimous(editor, second).Approve(ctx, req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"command":"rm -rf ~"}`, string(seen.Call.Args))
	assert.NotEqual(t, "ls", seen.Subject, "the second approver was shown the old call's subject")
	assert.NotEqual(t, classify.Safe, seen.Level, "the second approver was shown the old call's danger")
	assert.NotContains(t, seen.Reasons, "ls lists files", "the second approver was shown the old call's reasons")
}
