package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// dirTool is a tool whose calls run in a directory of their own (an MCP
// server started with dir, an argv shell tool): it names it with Workdir,
// as policy.Workdirer has it.
type dirTool struct {
	name, dir string
}

func (d dirTool) Spec() tool.Spec {
	return tool.Spec{Name: d.name, Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (d dirTool) Run(context.Context, tool.Call) (*tool.Result, error) {
	return &tool.Result{}, nil
}
func (d dirTool) Workdir(json.RawMessage) string { return d.dir }

// Attack: a tool that runs in a directory of its own takes a relative path
// argument from there, and /proc/self/cwd is that directory to it; the
// approval rules judged such a path in the agent's working directory:
// "key" given to a tool run in secrets passed a deny rule on secrets/**
// (and was approved by an allow rule on the working directory's files),
// as did "/proc/self/cwd/key" and "../secrets/key" from a tool run in sub.
// And an absolute path below the working directory ("$PWD/secrets/key",
// "/proc/self/cwd/secrets/key") was matched by absolute patterns only.
// Seen failing first (every call was approved). The rules now take the
// path from the tool's Workdir, as the governance policy does, and an
// absolute path below the working directory is also the relative one to
// deny and ask rules.
func TestAttackS19PathsOfAToolWithAWorkdir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project := filepath.Join(root, "project")
	for _, d := range []string{"secrets", "sub"} {
		require.NoError(t, os.MkdirAll(filepath.Join(project, d), 0o700))
	}
	t.Chdir(project)
	inSecrets := dirTool{"read_in_secrets", filepath.Join(project, "secrets")}
	inSub := dirTool{"read_in_sub", filepath.Join(project, "sub")}
	here := dirTool{"read_in_here", ""} // a tool run in the agent's working directory
	for _, rules := range [][]string{
		{"read_in_*(secrets/**)"},                                   // relative to the working directory
		{"read_in_*(" + filepath.ToSlash(project) + "/secrets/**)"}, // absolute
	} {
		p := MustPolicy(ModeAuto, DenyRules(rules...), AllowRules("read_in_*(*)", "read_in_*(sub/*)"))
		for _, c := range []struct {
			t    dirTool
			path string
			want Action
		}{
			{inSecrets, "key", ActionRefuse},
			{inSecrets, "./key", ActionRefuse},
			{inSecrets, "/proc/self/cwd/key", ActionRefuse},
			{inSub, "../secrets/key", ActionRefuse},
			{inSub, "readme.md", ActionAllow}, // sub/readme.md: the allow rule's
			// An absolute path below the working directory is the relative
			// path there to a deny rule, the tool's or the agent's.
			{here, filepath.ToSlash(project) + "/secrets/key", ActionRefuse},
			{here, "/proc/self/cwd/secrets/key", ActionRefuse},
			{inSecrets, filepath.ToSlash(project) + "/secrets/key", ActionRefuse},
		} {
			args, err := json.Marshal(map[string]string{"path": c.path})
			require.NoError(t, err)
			req := &Request{Call: tool.Call{Name: c.t.name, Args: args}, Spec: c.t.Spec(), Level: classify.Safe}
			ev := p.Evaluate(c.t, req)
			assert.Equal(t, c.want, ev.Action, "%v: %s(%s): %s (subject %q)", rules, c.t.name, c.path, ev.Reason, req.Subject)
		}
	}
}
