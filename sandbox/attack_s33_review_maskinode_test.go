package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Workspace.Masked remembers, by device and inode, the other hard links it
// masked (9941d9f), so that an editor that renames a new .env over the old
// leaves notes.txt, the old keys, masked. Once the developer deletes
// notes.txt, the file system gives its inode to the next file made (ext4
// does at once): that innocent file was masked, empty and read-only to
// every command, and remembered as long as it lasted.
func TestAttackS33ReviewReusedInodeMasksAnInnocentFile(t *testing.T) {
	dir := workspaceDir(t)
	ws, err := OpenWorkspace(dir, WithDeny("**/.env"))
	require.NoError(t, err)
	defer ws.Close()
	env, notes := filepath.Join(dir, ".env"), filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(env, []byte("KEY=1\n"), 0o644))
	require.NoError(t, os.Link(env, notes))
	mask, err := ws.Masked()
	require.NoError(t, err)
	require.Equal(t, []string{".env", "notes.txt"}, mask)
	// The editor's save, then the developer's clean-up.
	require.NoError(t, os.WriteFile(env+".new", []byte("KEY=2\n"), 0o644))
	require.NoError(t, os.Rename(env+".new", env))
	mask, err = ws.Masked()
	require.NoError(t, err)
	require.Equal(t, []string{".env", "notes.txt"}, mask, "notes.txt, the old keys, is remembered")
	fi, err := os.Stat(notes)
	require.NoError(t, err)
	ino := fi.Sys().(*syscall.Stat_t).Ino
	require.NoError(t, os.Remove(notes))
	// New files, until one has notes.txt's inode.
	reused := ""
	for i := 0; i < 64 && reused == ""; i++ {
		p := filepath.Join(dir, fmt.Sprintf("main%d.go", i))
		require.NoError(t, os.WriteFile(p, []byte("package main\n"), 0o644))
		fi, err := os.Stat(p)
		require.NoError(t, err)
		if fi.Sys().(*syscall.Stat_t).Ino == ino {
			reused = filepath.Base(p)
		}
	}
	if reused == "" {
		t.Skip("the file system gave no new file notes.txt's inode")
	}
	mask, err = ws.Masked()
	require.NoError(t, err)
	assert.Equal(t, []string{".env"}, mask, "%s, a new file that took notes.txt's inode, is masked", reused)
}
