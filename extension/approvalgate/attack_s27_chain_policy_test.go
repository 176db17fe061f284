package approvalgate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// The documented chain FirstDecisive(policy, person): the policy answers
// what it can and the person the rest. The approval extension judged the
// call with the tool (its workspace: "alias/key" is secrets/key through
// the link alias -> secrets), so the ask rule read_file(secrets/**) sent
// it to the approver. The chain's policy judged the same call again
// without the tool (Policy.Approve saw none): "alias/key" named nothing
// under secrets, the call was safe, and the policy approved it in the
// person's place. A policy in the chain judges the call as the extension
// does, with the called tool.
func TestAttackS27ChainPolicyJudgesWithoutTheTool(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("s3cr3t"), 0o600))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := registry.New()
	reg.MustRegister(builtin.ReadFile(ws))

	p := approval.MustPolicy(approval.ModeAuto, approval.AskRules("read_file(secrets/**)"))
	var asked atomic.Int32
	person := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return approval.Denied("ops", "not the keys"), nil
	})
	gate := approvalgate.New(approval.FirstDecisive(p, person), approvalgate.WithPolicy(p))
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)

	for _, path := range []string{"secrets/key", "alias/key"} {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c-" + path, Name: "read_file", Args: json.RawMessage(`{"path":"` + path + `"}`), Principal: tool.Principal{ID: "alice"}})
		requireDenied(t, res, err, "ops denied this call: not the keys")
		assert.NotContains(t, res.Text(), "s3cr3t", "%s: the key was read", path)
	}
	assert.EqualValues(t, 2, asked.Load(), "the chain's policy answered for the person")
}
