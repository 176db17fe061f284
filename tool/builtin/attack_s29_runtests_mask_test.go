package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// TestAttackS29RunTestsReadsWhatThePolicyHides: run_tests runs the
// project's test command, and the tests are the model's to write
// (write_file a test file, a Makefile target, a script the command runs):
// it is code of the model's choosing, as a bash command is. All masks what
// the workspace hides (a governance policy's forbidden_paths) from the
// bash tool, but built run_tests without the workspace, so its command ran
// unmasked: a test script that cats secrets/key printed the key (bwrap,
// seen on the old code), where the file tools and bash read nothing there.
// All gives run_tests the workspace now, as it gives bash.
func TestAttackS29RunTestsReadsWhatThePolicyHides(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("TOPSECRET-KEY\n"), 0o644))
	sb, err := sandbox.New("bwrap", sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 60 * time.Second}))
	require.NoError(t, err)
	if err := sb.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bwrap must be available in CI: %v", err)
		}
		t.Skipf("bwrap: %v", err)
	}
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithHide(func(rel, _ string) string {
		if rel == "secrets" || strings.HasPrefix(rel, "secrets/") {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	tools, err := builtin.All(ws, sb, builtin.WithTestCommand("sh", "test.sh"))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	e := &env{dir: ws.Dir(), ws: ws, ex: executor.MustNew(reg), reg: reg}

	res := e.call(t, "read_file", map[string]any{"path": "secrets/key"})
	require.NotNil(t, res.Error, "the file tools read nothing there")
	res = e.call(t, "write_file", map[string]any{"path": "test.sh", "content": "echo testing; cat secrets/key\n"})
	require.True(t, res.OK(), "%v", res.Error)
	res = e.call(t, "run_tests", map[string]any{})
	assert.Contains(t, res.Text(), "testing", "the test command ran: %v", res.Error)
	assert.NotContains(t, res.Text(), "TOPSECRET", "run_tests read a hidden file")
}
