package builtin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS29ReviewGitToolsStartNoConfiguredProgram: a repository's
// configuration names programs git starts for many reasons besides a
// fetch (17b7941): an external diff and a diff driver's command and
// textconv, clean and smudge filters and a long-running filter process, a
// pager per command, an fsmonitor hook, gpg, credential helpers and an
// askpass, an alternate refs command, each also from a file the
// configuration includes, and the same in a submodule's own
// configuration. None of them may run from git_status, git_diff or
// git_log: each writes a marker, and none is written.
func TestAttackS29ReviewGitToolsStartNoConfiguredProgram(t *testing.T) {
	e := newGitEnv(t)
	marker := filepath.Join(t.TempDir(), "ran")
	prog := filepath.Join(t.TempDir(), "prog")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n"), 0o755))

	// A submodule whose own configuration sets the same.
	sub := newGitEnv(t)
	git(t, e.dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "sub")
	git(t, e.dir, "commit", "-q", "-m", "add sub")

	included := filepath.Join(t.TempDir(), "included")
	keys := [][2]string{
		{"diff.external", prog}, {"diff.x.command", prog}, {"diff.x.textconv", prog},
		{"filter.y.clean", prog}, {"filter.y.smudge", prog}, {"filter.y.process", prog},
		{"core.pager", prog}, {"pager.status", prog}, {"pager.diff", prog}, {"pager.log", prog},
		{"core.fsmonitor", prog}, {"gpg.program", prog}, {"log.showSignature", "true"},
		{"credential.helper", "!" + prog}, {"core.askPass", prog}, {"core.alternateRefsCommand", prog},
		{"status.submoduleSummary", "true"}, {"diff.submodule", "log"}, {"submodule.recurse", "true"},
		{"core.untrackedCache", "true"}, {"log.follow", "true"}, {"diff.renames", "copies"},
	}
	for _, kv := range keys {
		git(t, e.dir, "config", kv[0], kv[1])
		git(t, filepath.Join(e.dir, "sub"), "config", kv[0], kv[1])
	}
	require.NoError(t, os.WriteFile(included, []byte("[core]\n\tfsmonitor = "+prog+"\n\tpager = "+prog+"\n[diff]\n\texternal = "+prog+"\n"), 0o644))
	git(t, e.dir, "config", "include.path", included)
	// a.txt has a diff driver (the tools show its change), b.txt a filter
	// (the tools leave it out).
	e.write(t, ".gitattributes", "a.txt diff=x\nb.txt filter=y\n")
	e.write(t, "sub/.gitattributes", "* diff=x filter=y\n")
	e.write(t, "a.txt", "one\ntwo\nthree\n")
	e.write(t, "b.txt", "changed\n")
	e.write(t, "sub/a.txt", "changed in the submodule\n")
	git(t, e.dir, "add", ".gitattributes")
	// The setup's own git add ran the fsmonitor and the clean filter.
	require.NoError(t, os.RemoveAll(marker))

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"git_status", map[string]any{}}, {"git_diff", map[string]any{}}, {"git_diff", map[string]any{"staged": true}},
		{"git_diff", map[string]any{"path": "sub"}}, {"git_log", map[string]any{}}, {"git_log", map[string]any{"path": "a.txt"}},
		{"git_log", map[string]any{"path": "sub"}},
	} {
		res := e.call(t, c.tool, c.args)
		t.Logf("%s %v: %v\n%s", c.tool, c.args, res.Error, res.Text())
	}
	ran, _ := os.ReadFile(marker)
	assert.Empty(t, string(ran), "a program the repository's configuration names ran")
}
