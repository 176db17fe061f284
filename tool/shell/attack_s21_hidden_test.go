package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// A governance policy's forbidden_paths (sandbox.WithHide) bound the file
// tools only: a bash command in the same workspace read secrets/key with
// cat, a command the classifier calls Safe, so nobody was asked (the gap
// docs/sandbox.md stated since 11-24). Seen failing first: bwrap and
// gvisor printed the key. The bash tool now passes what the workspace
// hides (Workspace.Masked) as Spec.Mask, and those engines mount empty,
// read-only directories and files over it; the process and landlock
// engines, which cannot, refuse the command.
func TestAttackS21BashReadsWhatThePolicyHides(t *testing.T) {
	hide := func(rel, _ string) string {
		if rel == "secrets" || strings.HasSuffix(rel, ".pem") {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	const read = `cat secrets/key; cat alias/key; cat deep/er/server.pem; ls secrets | wc -l; echo new > secrets/new || echo refused; cat notes.txt`
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor, sandbox.EngineLandlock, sandbox.EngineProcess} {
		t.Run(name, func(t *testing.T) {
			b, dir := maskedBash(t, name, map[string]string{"secrets/key": "TOPSECRET-KEY", "deep/er/server.pem": "TOPSECRET-PEM", "notes.txt": "public notes"}, hide)
			require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))

			res, err := b.Run(context.Background(), bashCall(read))
			if name == sandbox.EngineLandlock || name == sandbox.EngineProcess {
				require.Error(t, err, "%s cannot hide paths: it must refuse, not run: %s", name, res.Text())
				assert.Contains(t, err.Error(), "cannot hide paths from a command")
				assert.Contains(t, err.Error(), "bwrap or gvisor")
				return
			}
			require.NoError(t, err, "%s", res.Text())
			out := res.Text()
			assert.NotContains(t, out, "TOPSECRET", "a command read what the policy hides")
			assert.Contains(t, out, "refused", "a command wrote into a hidden directory")
			assert.Contains(t, out, "public notes", "what is not hidden stays readable")
			_, err = os.Stat(filepath.Join(dir, "secrets", "new"))
			assert.True(t, os.IsNotExist(err), "the write reached the hidden directory on the host")
		})
	}
}
