package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A masked symlink is masked where it leads, a directory there whole
// (conf/secrets -> ../store), and a path below that directory that another
// rule names (store/key, or the other link 9941d9f masks for a file there)
// is masked too: bwrap mounts the directories first, read-only, and could
// not make the file's mount point in it ("Can't create file at .../store/key:
// Read-only file system"): a command that planted the link made every next
// run of the workspace fail.
func TestAttackS33ReviewMaskedFileBelowASymlinkedMaskedDirectory(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			_, run := s33MaskedRunner(t, eng, "conf/secrets", "store/key")
			o := run(`mkdir -p store conf && echo MASKSECRET > store/key && echo ORDINARY > store/readme && ln -s ../store conf/secrets && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			o = run(`cat conf/secrets/key store/key store/readme; echo end`)
			out := string(o.Stdout)
			assert.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read %d masked files", strings.Count(out, "MASKSECRET"))
			assert.Zero(t, strings.Count(out, "ORDINARY"), "a command read the masked directory's file")
		})
	}
}
