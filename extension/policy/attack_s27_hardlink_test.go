package policy_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// A hard link to a forbidden file in an allowed directory (notes/k, the
// inode of secrets/key) is the secret under an allowed name: the policy
// judges names, not inodes, so it must refuse making one. Argv tools that
// make links (ln in both argument orders, ln -t, cp -l, link) with their
// paths declared are refused when either path is forbidden, and no link
// is made; a link between allowed files is made. A guard: refused before
// this session too.
func TestS27MakingAHardLinkToAForbiddenFileIsRefused(t *testing.T) {
	for _, prog := range []string{"ln", "cp", "link"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for f, text := range map[string]string{"secrets/key": sshSecret, "notes/a": "note"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600))
	}
	sb, err := sandbox.New("process", sandbox.WithWorkspace(dir),
		sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
	require.NoError(t, err)
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	schema := json.RawMessage(`{"type":"object","properties":{` +
		`"from":{"type":"string","x-toolbelt-path":true},` +
		`"to":{"type":"string","x-toolbelt-path":true}},"required":["from","to"]}`)
	reg := registry.New()
	for name, argv := range map[string][]string{
		"ln":   {"ln", "--", "{from}", "{to}"},
		"ln_t": {"ln", "-t", "{to}", "--", "{from}"},
		"cp_l": {"cp", "-l", "--", "{from}", "{to}"},
		"link": {"link", "{from}", "{to}"},
	} {
		c, err := shell.New(tool.Spec{Name: name, Description: "Link a file", Risk: tool.RiskLow, InputSchema: schema}, sb,
			shell.Config{Argv: argv})
		require.NoError(t, err)
		require.NoError(t, reg.Register(c))
	}
	ex := executor.MustNew(reg, executor.WithExtensions(p))
	for _, tc := range []struct{ tool, from, to, made string }{
		{"ln", "secrets/key", "notes/k", "notes/k"},
		{"ln", "notes/a", "secrets/k", "secrets/k"}, // the other order: into the forbidden directory
		{"ln_t", "secrets/key", "notes", "notes/key"},
		{"cp_l", "secrets/key", "notes/k", "notes/k"},
		{"link", "secrets/key", "notes/k", "notes/k"},
		{"ln", "secrets/../secrets/key", "notes/k", "notes/k"},
		{"ln", dir + "/secrets/key", "notes/k", "notes/k"},
	} {
		res := call(t, ex, tc.tool, map[string]any{"from": tc.from, "to": tc.to})
		if assert.NotNil(t, res.Error, "%s %s %s made a link", tc.tool, tc.from, tc.to) {
			assert.Equal(t, "global.forbidden_paths", res.Metadata[policy.MetaRule], "%v", res.Error)
		}
		_, err := os.Lstat(filepath.Join(dir, tc.made))
		assert.ErrorIs(t, err, os.ErrNotExist, "%s %s %s", tc.tool, tc.from, tc.to)
	}
	res := call(t, ex, "ln", map[string]any{"from": "notes/a", "to": "notes/b"})
	require.Nil(t, res.Error, "%v", res.Error)
	fa, err := os.Stat(filepath.Join(dir, "notes", "a"))
	require.NoError(t, err)
	fb, err := os.Stat(filepath.Join(dir, "notes", "b"))
	require.NoError(t, err)
	assert.True(t, os.SameFile(fa, fb))
}
