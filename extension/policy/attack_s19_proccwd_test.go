package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool that runs its calls in a directory of its own (Workdirer: an argv
// shell tool) runs them in a process of their own, for which /proc/self is
// that process: /proc/self/cwd is the tool's directory, not the agent's.
// The policy followed the link in its own process, so "/proc/self/cwd/key"
// was judged as the agent's working directory's key (outside the
// project, which "secrets/**" does not name) while show_secrets, run in
// secrets, printed secrets/key; the spellings through /proc/thread-self,
// /dev/fd/.. and a task's directory, and "../" after the link, as well.
// Seen failing first: every case read the secret.
func TestAttackS19ProcSelfCwdOfAToolWithAWorkdir(t *testing.T) {
	for _, tc := range []struct {
		governance, tool, path, rule string
	}{
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "/proc/self/cwd/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "/proc/thread-self/cwd/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "/dev/fd/../cwd/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_secrets", "/proc/self/task/../cwd/./key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["secrets/**"]}`, "show_sub", "/proc/self/cwd/../secrets/key", "global.forbidden_paths"},
		{`global: {forbidden_paths: ["**/.ssh/**"]}`, "show_sub", "/proc/self/cwd/notes/id", "global.forbidden_paths"},
		{`global: {allowed_paths: ["sub/**"]}`, "show_sub", "/proc/self/cwd/../secrets/key", "global.allowed_paths"},
	} {
		refusedInWorkdir(t, tc.governance, tc.tool, tc.path, tc.rule, false, func(t *testing.T, res *tool.Result) {
			assert.Equal(t, tool.CodePolicyDenied, res.Error.Code, "%v", res.Error)
		})
	}
}

// The tool's own directory through /proc/self/cwd is still its directory:
// readme.md there runs.
func TestS19ProcSelfCwdOfAToolWithAWorkdirRuns(t *testing.T) {
	ex := workdirFixture(t, `global: {forbidden_paths: ["secrets/**", "**/.ssh/**"]}`, wrappers["bare"], false)
	res := call(t, ex, "show_sub", map[string]any{"path": "/proc/self/cwd/readme.md"})
	require.Nil(t, res.Error, "%v", res.Error)
	assert.Contains(t, res.Text(), "readme")
}
