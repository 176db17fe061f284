package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// maskedBash returns a bash tool in engine name over a workspace holding
// files (path: content) and hiding what hide names; it skips when the
// engine is missing outside CI.
func maskedBash(t *testing.T, name string, files map[string]string, hide sandbox.HideFunc) (*shell.Bash, string) {
	t.Helper()
	sb, ws := maskedEngine(t, name, files, hide)
	dir := ws.Dir()
	b, err := shell.NewBash(sb, ws, shell.AllowBlocked())
	require.NoError(t, err)
	return b, dir
}

// A hide rule names a path, not what is in it: a command that renamed the
// directory above a masked path (mv conf c2) moved the hidden files to a
// name no rule names, and the next command read them (seen failing first,
// bwrap and gvisor: TOPSECRET-KEY and TOPSECRET-PROD printed), and the file
// tools read them there too (they refuse that move themselves). Each
// directory above a masked path is now a mount point in the run, which
// rename refuses (EBUSY); Workspace.Masked also follows a directory that
// moved anyway (TestWorkspaceMaskedFollowsARenamedDirectory).
func TestAttackS21rBashRenamesTheParentOfAMaskedPath(t *testing.T) {
	hide := func(rel, _ string) string {
		if rel == "conf/secrets" || rel == "x/y/prod.yaml" {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			b, dir := maskedBash(t, name, map[string]string{
				"conf/secrets/key": "TOPSECRET-KEY", "conf/app.yaml": "app", "x/y/prod.yaml": "TOPSECRET-PROD", "x/y/dev.yaml": "dev",
			}, hide)
			res, err := b.Run(context.Background(), bashCall(`echo changed >> conf/app.yaml && echo new > conf/new && echo ok; `+
				`mv conf c2; mv x z; mv x/y x/w; mv z/y z/w; mv c2/secrets c2/s; rm -rf conf x; cat c2/secrets/key z/w/prod.yaml; true`))
			require.NoError(t, err)
			first := res.Text()
			assert.Contains(t, first, "ok", "a directory above a masked path stays writable")
			read := `cat c2/secrets/key z/w/prod.yaml z/y/prod.yaml x/w/prod.yaml c2/s/key conf/secrets/key x/y/prod.yaml; cat x/y/dev.yaml; true`
			res, err = b.Run(context.Background(), bashCall(read))
			require.NoError(t, err)
			out := first + res.Text()
			assert.NotContains(t, out, "TOPSECRET", "a command read what the policy hides after renaming its directory")
			assert.Contains(t, out, "dev", "what is beside a masked file stays readable")
			// Where the rules (and the file tools) look for them.
			for _, p := range []string{"conf/secrets/key", "x/y/prod.yaml"} {
				_, err := os.Stat(filepath.Join(dir, p))
				assert.NoError(t, err, "a command moved %s from under its rule", p)
			}
		})
	}
}
