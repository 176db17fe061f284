package shell_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// An argv tool's Subject (what approval rules match and a person reads)
// was its bare command line, though Assess judged it as run in its
// Workdir: a deny rule for wipe(rm -rf -- secrets*) let wipe run rm -rf -- .
// in secrets under allow_all. It begins with cd into the directory, as a
// bash call's Subject does.
func TestAttackRulesSeeACommandsWorkdir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "secrets"), 0o755))
	sb := processEngine(t, dir)
	wipe := func(workdir string) *shell.Command {
		c, err := shell.New(tool.Spec{Name: "wipe", Description: "Remove a tree",
			InputSchema: []byte(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`)},
			sb, shell.Config{Argv: []string{"rm", "-rf", "--", "{target}"}, Workdir: workdir})
		require.NoError(t, err)
		return c
	}
	p := approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules("wipe(rm -rf -- secrets*)"))
	judge := func(c *shell.Command, target string) approval.Action {
		b, _ := json.Marshal(map[string]string{"target": target})
		return p.Evaluate(c, &approval.Request{Call: tool.Call{Name: "wipe", Args: b}, Spec: c.Spec(), Level: classify.Safe}).Action
	}
	require.Equal(t, approval.ActionRefuse, judge(wipe(""), "secrets"), "the rule refuses the bare form")
	assert.Equal(t, approval.ActionRefuse, judge(wipe("secrets"), "."), "rm -rf -- . run in secrets")
	assert.Equal(t, approval.ActionRefuse, judge(wipe(filepath.Join(dir, "secrets")), "."), "an absolute Workdir in the workspace too")
	assert.Equal(t, approval.ActionAllow, judge(wipe(""), "build"))

	b, _ := json.Marshal(map[string]string{"target": "."})
	assert.Equal(t, "cd -- secrets\nrm -rf -- .", wipe("secrets").Subject(b), "what a person asked reads")
	assert.Equal(t, "rm -rf -- .", wipe("").Subject(b))
}
