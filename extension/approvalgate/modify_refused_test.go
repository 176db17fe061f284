package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A modification is a new call: what the approval policy refuses outright
// (a deny rule, a blocked command, which "never run, in any mode") is not
// let through because a reviewer wrote it in place of the model's
// arguments. Before the modified arguments were judged again, the
// reviewer's "sudo rm -rf /" and "git push --force" both ran.
func TestModificationTheApprovalPolicyRefusesDoesNotRun(t *testing.T) {
	pol := approval.MustPolicy(approval.ModeAuto, approval.DenyRules("shell(git push*)"))
	for _, tc := range []struct {
		mod, code, want string
	}{
		{`{"command":"sudo rm -rf /"}`, string(tool.CodeApprovalDenied), "privilege escalation"},
		{`{"command":"git push --force"}`, string(tool.CodeApprovalDenied), `"deny shell(git push*)"`},
	} {
		t.Run(tc.mod, func(t *testing.T) {
			var r ran
			ex := newExec(t, &r, approvalgate.New(fixed(approval.Modified("reviewer", json.RawMessage(tc.mod))), approvalgate.WithPolicy(pol)))
			res, err := ex.Execute(context.Background(), shellCall("rm -r build"))
			assert.Empty(t, r.list(), "the refused modification ran")
			requireRefused(t, res, err, tool.Code(tc.code), tc.want)
			meta, _ := res.Metadata["approval"].(map[string]any)
			assert.Equal(t, "deny", meta["decision"])
		})
	}
	t.Run("a modification the policy would ask about runs: the reviewer wrote it", func(t *testing.T) {
		var r ran
		ex := newExec(t, &r, approvalgate.New(fixed(approval.Modified("reviewer", json.RawMessage(`{"command":"rm -ri build"}`))), approvalgate.WithPolicy(pol)))
		res, err := ex.Execute(context.Background(), shellCall("rm -r build"))
		assert.NoError(t, err)
		assert.Nil(t, res.Error)
		assert.Len(t, r.list(), 1)
	})
}
