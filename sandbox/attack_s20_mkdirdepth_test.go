package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// write_file makes the missing directories of its path with MkdirAll, which
// judged every directory it made on its whole path, folding it again each
// time: a model's path of 1,356 components "é/" (4 KiB) took about 6 s of
// CPU and left 1,356 directories behind when the kernel's PATH_MAX stopped
// it (found by the cost attacker). Seen failing first: the directories were
// made. Such a path is refused before anything is made.
func TestAttackS20DeepMkdirAllIsRefused(t *testing.T) {
	dir := t.TempDir()
	w, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)

	err = w.MkdirAll(strings.Repeat("é/", 1356)+"f", 0)
	require.Error(t, err)
	assert.True(t, errors.Is(err, sandbox.ErrTooLarge), "%v", err)
	assert.ErrorContains(t, err, "at most 256 deep")
	err = w.MkdirAll(strings.Repeat("a/", 256)+"f", 0)
	assert.True(t, errors.Is(err, sandbox.ErrTooLarge), "257 components: %v", err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused path makes no directory")

	// 256 components are made, and the rules still judge every directory
	// on the way, folded: a protected name deep in the path, in capitals.
	deep := strings.Repeat("é/", 255) + "f"
	require.NoError(t, w.MkdirAll(deep, 0))
	fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(deep)))
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	err = w.MkdirAll(strings.Repeat("b/", 200)+".GIT/hooks", 0)
	assert.True(t, errors.Is(err, sandbox.ErrProtected), "%v", err)
}

// The same through a workspace whose deny rule names a folded spelling:
// each directory MkdirAll makes is judged folded, component by component.
func TestMkdirAllJudgesEachDirectoryFolded(t *testing.T) {
	dir := t.TempDir()
	w, err := sandbox.OpenWorkspace(dir, sandbox.WithDeny("**/café"))
	require.NoError(t, err)
	err = w.MkdirAll(strings.Repeat("x/", 100)+"CAFE\u0301/inner", 0)
	require.Error(t, err)
	assert.True(t, errors.Is(err, sandbox.ErrDeniedByRule), "%v", err)
	_, err = os.Stat(filepath.Join(dir, filepath.FromSlash(strings.Repeat("x/", 100)+"CAFE\u0301")))
	assert.True(t, errors.Is(err, os.ErrNotExist), "the denied directory is not made: %v", err)
}
