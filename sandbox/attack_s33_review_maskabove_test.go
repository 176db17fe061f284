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
			dir := workspaceDir(t)
			ws, err := OpenWorkspace(dir, WithDeny("**/.env", "secret"))
			require.NoError(t, err)
			defer ws.Close()
			sb := engine(t, eng, WithWorkspace(dir))
			run := func(script string) *Outcome {
				mask, err := ws.Masked()
				require.NoError(t, err)
				return s33Run(t, sb, Spec{Argv: []string{"sh", "-c", script}, Mask: mask})
			}
			o := run(`mkdir a && ln -s ../.. a/.env && echo MASKSECRET > secret && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			o = run(`cat secret; echo end`)
			assert.Zero(t, strings.Count(string(o.Stdout), "MASKSECRET"), "a command read the masked file")
		})
	}
}
