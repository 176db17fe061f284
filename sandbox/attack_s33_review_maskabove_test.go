package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A masked symlink that leads to a directory above the workspace
// (a/.env -> ../.., the directory that holds it) has that directory
// masked. 303e7be left out every mask below another masked directory, the
// workspace's own too: gvisor mounts the deeper workspace over the
// directory above it, so the workspace showed with none of its masks, and
// a command read the hidden file (1 of 1). bwrap hides the workspace with
// that directory and cannot start the run (as before 303e7be); only the
// reading is checked.
func TestAttackS33ReviewMaskedSymlinkAboveTheWorkspace(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			_, run := s33MaskedRunner(t, eng, "**/.env", "secret")
			o := run(`mkdir a && ln -s ../.. a/.env && echo MASKSECRET > secret && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			o = run(`cat secret; echo end`)
			assert.Zero(t, strings.Count(string(o.Stdout), "MASKSECRET"), "a command read the masked file")
		})
	}
}
