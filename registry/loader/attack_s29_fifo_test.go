//go:build unix

package loader_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
)

// A directory of tool files an agent can write can hold what is not a
// file: a named pipe (mkfifo tools/zz.yaml), or a link to one or to a
// terminal. Opening a pipe waits for a writer, so LoadFS and LoadFile
// never returned, and a program that loads its tools at start never
// started. Seen failing before: the test was stopped by go test -timeout.
// What is not a regular file is refused, before it is opened.
func TestAttackS29NamedPipeDoesNotHangTheLoad(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("tools:\n  - {name: ok, description: d, type: go, implementation: {function: read_file}}\n"), 0o600))
	pipe := filepath.Join(dir, "zz.yaml")
	require.NoError(t, syscall.Mkfifo(pipe, 0o600))
	require.NoError(t, os.Symlink(pipe, filepath.Join(dir, "link.yaml")))
	t.Cleanup(func() { // let a load still waiting on the pipe go
		if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})

	reg := registry.New()
	err := newLoader(nil).LoadFS(reg, os.DirFS(dir), "*.yaml")
	require.Error(t, err)
	assert.Equal(t, []string{
		"link.yaml: is not a regular file (a named pipe): tool files are read whole, so a pipe, a device or a directory is not loaded",
		"zz.yaml: is not a regular file (a named pipe): tool files are read whole, so a pipe, a device or a directory is not loaded",
	}, problems(t, err))
	assert.Empty(t, reg.Names())

	err = newLoader(nil).LoadFile(registry.New(), pipe)
	require.Error(t, err)
	assert.Equal(t, []string{pipe + ": is not a regular file (a named pipe): tool files are read whole, so a pipe, a device or a directory is not loaded"}, problems(t, err))

	require.NoError(t, newLoader(nil).LoadFile(reg, filepath.Join(dir, "a.yaml")), "a regular file still loads")
	assert.Equal(t, []string{"ok"}, reg.Names())
}
