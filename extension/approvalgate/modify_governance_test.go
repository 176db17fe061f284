package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The governance policy runs before the approval extension, so it judged
// only the model's arguments: a reviewer's modification went to the tool
// unjudged. Before the policy left its judge for the approval extension, a
// Modified decision moved write_file from /w/notes.txt to /etc/passwd
// (forbidden_paths) and grew its content past max_field_bytes, and both
// ran.
func TestModificationTheGovernancePolicyRefusesDoesNotRun(t *testing.T) {
	type writeArgs struct {
		Path    string `json:"path" toolbelt:"path"`
		Content string `json:"content"`
	}
	var wrote []string
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file", func(_ context.Context, a writeArgs) (string, error) {
		wrote = append(wrote, a.Path)
		return "ok", nil
	}, tool.WithRisk(tool.RiskHigh)))
	gov, err := policy.Parse([]byte("global: {forbidden_paths: [\"/etc/**\"], max_field_bytes: {content: 8}}\n"))
	require.NoError(t, err)
	for _, mod := range []string{`{"path":"/etc/passwd","content":"x"}`, `{"path":"/w/notes.txt","content":"far too long"}`} {
		t.Run(mod, func(t *testing.T) {
			wrote = nil
			gate := approvalgate.New(fixed(approval.Modified("reviewer", json.RawMessage(mod))))
			ex := executor.MustNew(reg, executor.WithExtensions(gov, gate, gate.Guard()))
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "write_file", Args: json.RawMessage(`{"path":"/w/notes.txt","content":"hi"}`)})
			assert.Error(t, err)
			assert.Empty(t, wrote, "the modification ran past the governance policy")
			if assert.NotNil(t, res.Error) {
				assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
				assert.Contains(t, res.Error.Message, "policy rule global.")
			}
		})
	}
	t.Run("a modification the governance allows runs", func(t *testing.T) {
		wrote = nil
		gate := approvalgate.New(fixed(approval.Modified("reviewer", json.RawMessage(`{"path":"/w/other.txt","content":"x"}`))))
		ex := executor.MustNew(reg, executor.WithExtensions(gov, gate, gate.Guard()))
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "write_file", Args: json.RawMessage(`{"path":"/w/notes.txt","content":"hi"}`)})
		assert.NoError(t, err)
		assert.Nil(t, res.Error)
		assert.Equal(t, []string{"/w/other.txt"}, wrote)
	})
}
