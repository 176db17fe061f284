package builtin_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// git diff ends, when some file's stat changed but not its content
// (diff.autoRefreshIndex), by refreshing the whole index with no
// pathspec: a filtered file whose stat changed is compared by content
// then, through the clean filter the repository's configuration names,
// which ":(attr:!filter)" kept out of the diff itself.
func TestReviewS14GitDiffRefreshRunsACleanFilter(t *testing.T) {
	e := newGitEnv(t)
	bin := t.TempDir()
	marker := filepath.Join(bin, "ran")
	prog := filepath.Join(bin, "clean")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\ncat\n"), 0o755))
	e.write(t, ".gitattributes", "a.txt filter=x\n")
	git(t, e.dir, "add", ".gitattributes")
	git(t, e.dir, "commit", "-q", "-m", "attributes")
	git(t, e.dir, "config", "filter.x.clean", prog)
	for _, args := range []map[string]any{{}, {"path": "b.txt"}} {
		// Same content, new mtime, for the filtered file and another.
		future := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(e.dir, "a.txt"), future, future))
		require.NoError(t, os.Chtimes(filepath.Join(e.dir, "b.txt"), future, future))
		res := e.call(t, "git_diff", args)
		require.True(t, res.OK(), "%v", res.Error)
		assert.NoFileExists(t, marker, "git_diff %v ran the repository's clean filter", args)
		os.Remove(marker)
	}
}
