package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s33rLinkRun plants with a first command (no rule names anything there
// yet), writes the developer's keys to each of keys where it is (through a
// link, appending, as echo KEY=... >> .env does), and returns what a second
// command, run with the masks Workspace.Masked gives then, printed.
func s33rLinkRun(t *testing.T, eng string, rules []string, plant string, keys []string, read string) string {
	t.Helper()
	dir, run := s33MaskedRunner(t, eng, rules...)
	o := run(plant + " && echo planted")
	require.Contains(t, string(o.Stdout), "planted", "the plant failed")
	for _, p := range keys {
		f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(p)), os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		_, err = f.WriteString("MASKSECRET " + p + "\n")
		require.NoError(t, f.Close())
		require.NoError(t, err)
	}
	o = run(read + "; echo end")
	out := string(o.Stdout)
	require.Contains(t, out, "end", "the attack did not run")
	return out
}

// Below a masked directory the walk that finds the hidden files' other
// links looks no further than MaxTrackedDepth levels (or MaxTrackedEntries
// entries, all masked directories together). A command that made
// conf/secrets before any rule hid it put key there as a symlink to a file
// 260 levels down in it, linked out as notes.txt; the developer's keys,
// written to conf/secrets/key, went to that file, and the next command read
// notes.txt.
func TestAttackS33ReviewLinkPastTheWalksBoundBelowAMaskedDirectory(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			out := s33rLinkRun(t, eng, []string{"conf/secrets"},
				`p=d; for i in $(seq 259); do p=$p/d; done
mkdir -p conf/secrets/$p && : > conf/secrets/$p/k && ln conf/secrets/$p/k notes.txt && ln -s $p/k conf/secrets/key`,
				[]string{"conf/secrets/key"},
				`cat conf/secrets/key notes.txt`)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files through a hard link past the walk's bound", strings.Count(out, "MASKSECRET"))
		})
	}
}
