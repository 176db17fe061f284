package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A masked symlink is masked where it leads, wherever that is: a command
// that planted .env -> /usr (or /, or /usr/lib) under a rule that hides
// **/.env had the next runs mask the system's programs, and none started
// ("execvp /proc/self/fd/4: No such file or directory" on bwrap, "failed
// to load /usr/bin/prlimit" on gvisor) until someone found and removed the
// link. What such a link leads to is the system's, read-only and no
// secret: it is left unmasked. A link to a file of the workspace is masked
// as before.
func TestAttackS33ReviewMaskedSymlinkToTheSystemsPrograms(t *testing.T) {
	requireRoot(t)
	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			_, run := s33MaskedRunner(t, eng, "**/.env")
			o := run(`mkdir a b c d && ln -s /usr a/.env && ln -s / b/.env && ln -s /usr/lib c/.env && echo MASKSECRET > real && ln -s ../real d/.env && echo planted`)
			require.Contains(t, string(o.Stdout), "planted", "the plant failed")
			o = run(`cat real d/.env; echo end`)
			out := string(o.Stdout)
			assert.Contains(t, out, "end", "the run failed: %s", o.Stderr)
			assert.Zero(t, strings.Count(out, "MASKSECRET"), "a command read the file a masked symlink leads to")
		})
	}
}
