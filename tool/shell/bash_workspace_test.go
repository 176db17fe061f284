package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// An engine whose workspace is not the bash tool's workspace cannot run a
// single command there: every call failed with filesystem_policy
// ("Spec.Dir ... is outside the workspace"). NewBash refuses the pair.
func TestBashRefusesAnEngineWithAnotherWorkspace(t *testing.T) {
	engineDir, wsDir := t.TempDir(), t.TempDir()
	_, err := shell.NewBash(processEngine(t, engineDir), mustWorkspace(t, wsDir))
	require.Error(t, err, "an engine confined to another directory was accepted")
	assert.Contains(t, err.Error(), "sandbox.WithWorkspace(ws.Dir())")
}

// An engine that confines files (every one but process) and has no
// workspace runs bash in a read-only world: nothing the model asks to
// write can be written. NewBash refuses it.
func TestBashRefusesAConfiningEngineWithoutWorkspace(t *testing.T) {
	sb, err := sandbox.New("bwrap", sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bwrap must be available in CI: %v", err)
		}
		t.Skipf("bwrap: %v", err)
	}
	_, err = shell.NewBash(sb, mustWorkspace(t, t.TempDir()))
	require.Error(t, err, "a bwrap engine without a workspace was accepted")
	assert.Contains(t, err.Error(), "sandbox.WithWorkspace(ws.Dir())")
}

// The same directory reached through a symlink is the same workspace; the
// process engine without a workspace confines nothing, so it still pairs.
func TestBashAcceptsTheSameWorkspaceThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	b, err := shell.NewBash(processEngine(t, link), mustWorkspace(t, dir))
	require.NoError(t, err)
	_, err = b.Run(context.Background(), bashCall("touch marker"))
	require.NoError(t, err)
	assert.True(t, exists(filepath.Join(dir, "marker")))

	plain, err := sandbox.New("process")
	require.NoError(t, err)
	_, err = shell.NewBash(plain, mustWorkspace(t, dir))
	require.NoError(t, err)
}
