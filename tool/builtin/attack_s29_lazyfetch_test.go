package builtin_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS29GitToolsFetchNothing: a repository whose configuration
// makes it a partial clone (remote.origin.promisor, extensions.partialClone)
// fetches an object it lacks from its promisor remote when a command needs
// it, by running "git fetch" from inside git diff or git log. The remote
// is the configuration's, so is the way it is reached: a local path with
// remote.origin.uploadpack (run by a shell), ssh with core.sshCommand, or
// ext:: (a command line) with protocol.ext.allow. git_diff and git_log,
// read-only and low-risk tools a policy lets run unasked, ran that program
// (seen: the marker written), as the hooks of TestAttackS17GitToolsRunNoHook
// did. No transport may be used: the git tools never fetch.
func TestAttackS29GitToolsFetchNothing(t *testing.T) {
	for _, how := range []string{"uploadpack", "sshCommand", "ext"} {
		t.Run(how, func(t *testing.T) {
			e := newGitEnv(t)
			marker := filepath.Join(t.TempDir(), "ran")
			prog := filepath.Join(t.TempDir(), "prog")
			require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\necho ran >> "+marker+"\nexit 1\n"), 0o755))
			switch how {
			case "uploadpack":
				git(t, e.dir, "config", "remote.origin.url", t.TempDir())
				git(t, e.dir, "config", "remote.origin.uploadpack", prog)
			case "sshCommand":
				git(t, e.dir, "config", "remote.origin.url", "ssh://git.example.invalid/repo.git")
				git(t, e.dir, "config", "core.sshCommand", prog)
			case "ext":
				git(t, e.dir, "config", "remote.origin.url", "ext::"+prog)
				git(t, e.dir, "config", "protocol.ext.allow", "always")
			}
			git(t, e.dir, "config", "remote.origin.promisor", "true")
			git(t, e.dir, "config", "core.repositoryformatversion", "1")
			git(t, e.dir, "config", "extensions.partialClone", "origin")
			// The blob a.txt holds in HEAD (and the index) is gone: git diff
			// needs it to show the working tree's change, git log -- a.txt
			// needs the trees.
			for _, obj := range []string{"HEAD:a.txt", "HEAD^{tree}"} {
				out, err := exec.Command("git", "-C", e.dir, "rev-parse", obj).Output()
				require.NoError(t, err)
				id := strings.TrimSpace(string(out))
				require.NoError(t, os.Remove(filepath.Join(e.dir, ".git", "objects", id[:2], id[2:])))
			}
			e.write(t, "a.txt", "one\ntwo\nthree\n")
			for _, c := range []struct {
				tool string
				args map[string]any
			}{{"git_diff", map[string]any{}}, {"git_diff", map[string]any{"staged": true}}, {"git_log", map[string]any{"path": "a.txt"}}, {"git_status", map[string]any{}}} {
				res := e.call(t, c.tool, c.args)
				t.Logf("%s %v: %v", c.tool, c.args, res.Error)
			}
			ran, _ := os.ReadFile(marker)
			assert.Empty(t, string(ran), "the repository's fetch program ran")
		})
	}
}
