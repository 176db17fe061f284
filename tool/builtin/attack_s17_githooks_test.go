package builtin_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS17GitToolsRunNoHook: the git tools are read-only and
// low-risk, so a policy lets them run unasked, but git runs the
// repository's hooks (.git/hooks, or wherever core.hooksPath points: the
// repository's configuration is the model's to write from a sandboxed
// shell). git status writes the refreshed index when it can, and each
// write runs post-index-change: a program of the model's choosing, run by
// a call nobody judged as running one. No hook may run.
func TestAttackS17GitToolsRunNoHook(t *testing.T) {
	for _, where := range []string{"hooks", "core.hooksPath"} {
		t.Run(where, func(t *testing.T) {
			e := newGitEnv(t)
			marker := filepath.Join(t.TempDir(), "ran")
			hooks := filepath.Join(e.dir, ".git", "hooks")
			if where == "core.hooksPath" {
				hooks = t.TempDir()
				git(t, e.dir, "config", "core.hooksPath", hooks)
			}
			require.NoError(t, os.MkdirAll(hooks, 0o755))
			for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-auto-gc"} {
				require.NoError(t, os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\necho "+h+" >> "+marker+"\n"), 0o755))
			}
			// A stat change, so that git status has an index to refresh.
			e.write(t, "a.txt", "one\ntwo\n")
			later := time.Now().Add(time.Hour)
			require.NoError(t, os.Chtimes(filepath.Join(e.dir, "a.txt"), later, later))
			for _, c := range []struct {
				tool string
				args map[string]any
			}{{"git_status", map[string]any{}}, {"git_diff", map[string]any{}}, {"git_diff", map[string]any{"staged": true}}, {"git_log", map[string]any{}}} {
				res := e.call(t, c.tool, c.args)
				require.True(t, res.OK(), "%s: %v", c.tool, res.Error)
			}
			ran, _ := os.ReadFile(marker)
			assert.Empty(t, string(ran), "hooks ran")
		})
	}
}
