package shell_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Past what the mask walk bounds (more than sandbox.MaxMasked hidden paths,
// more than sandbox.MaxTrackedEntries entries, deeper than
// sandbox.MaxTrackedDepth), the bash tool refuses the command rather than
// run it with some hidden paths unmasked; the command does not run at all.
// The idmapped copy of the workspace the engine binds from (a root host,
// a workspace root owns) is out of the command's sight.
func TestAttackS21rBashPastTheMaskBounds(t *testing.T) {
	hide := func(rel, _ string) string {
		if strings.HasSuffix(rel, ".pem") {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	b, dir := maskedBash(t, sandbox.EngineBwrap, map[string]string{"key.pem": "TOPSECRET"}, hide)
	res, err := b.Run(context.Background(), bashCall(`ls -d /tmp/* /var/tmp/* 2>/dev/null; cat /tmp/toolbelt-idmap-*/ws/key.pem 2>/dev/null; true`))
	require.NoError(t, err)
	assert.NotContains(t, res.Text(), "TOPSECRET", "the command reached the idmapped source of the workspace")
	assert.NotContains(t, res.Text(), "toolbelt-idmap", "the command sees the idmapped source of the workspace")

	run := `touch ran`
	tooMany := func(t *testing.T, what string) {
		t.Helper()
		_, err := b.Run(context.Background(), bashCall(run))
		require.Error(t, err, "%s: the command ran", what)
		assert.Equal(t, tool.CodeFilesystemPolicy, tool.AsError(err).Code)
		assert.NoFileExists(t, filepath.Join(dir, "ran"), "%s: the command ran", what)
	}

	many := filepath.Join(dir, "many")
	require.NoError(t, os.Mkdir(many, 0o755))
	for i := range sandbox.MaxMasked {
		require.NoError(t, os.WriteFile(filepath.Join(many, fmt.Sprintf("%04d.pem", i)), nil, 0o644))
	}
	tooMany(t, "more than MaxMasked hidden paths")
	require.NoError(t, os.RemoveAll(many))

	deep := dir
	for range sandbox.MaxTrackedDepth + 1 {
		deep = filepath.Join(deep, "d")
	}
	require.NoError(t, os.MkdirAll(deep, 0o755))
	tooMany(t, "deeper than MaxTrackedDepth")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "d")))

	wide := filepath.Join(dir, "wide")
	require.NoError(t, os.Mkdir(wide, 0o755))
	for i := range sandbox.MaxTrackedEntries {
		f, err := os.Create(filepath.Join(wide, fmt.Sprint(i)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	tooMany(t, "more than MaxTrackedEntries entries")
	require.NoError(t, os.RemoveAll(wide))

	_, err = b.Run(context.Background(), bashCall(run))
	require.NoError(t, err, "back within the bounds, commands run")
}
