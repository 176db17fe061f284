package policy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The policy read a backslash in a path argument as a separator, as a
// Windows tool does, and judged only that reading. On Linux and macOS a
// backslash is a character of a name: "secrets/x\..\..\notes.txt" is the
// file `x\..\..\notes.txt` inside secrets, which the policy judged as
// notes.txt, so a Go tool that creates the file (os.WriteFile) wrote into
// the forbidden directory; "/etc/x\..\..\tmp\y" likewise wrote into /etc.
// Seen failing first: every case was allowed. Both readings are judged
// now.
func TestAttackS26BackslashIsACharacterOfANameOffWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows a backslash is a separator, the one reading")
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**", "secrets/**", "**/.ssh/**"]}`), policy.WithBaseDir(dir))
	require.NoError(t, err)
	// What a Go tool does with the first one: the file lands in secrets.
	require.NoError(t, os.WriteFile(filepath.Join(dir, `secrets/x\..\..\notes.txt`), []byte("x"), 0o644))
	entries, err := os.ReadDir(filepath.Join(dir, "secrets"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "the write went into secrets")
	spec := readAnySpec(t)
	for _, path := range []string{
		`secrets/x\..\..\notes.txt`,
		`/etc/x\..\..\tmp\y`,
		filepath.Join(dir, `secrets/a\..\..\b`),
		`.ssh/k\..\..\k`,
	} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q names a file inside the forbidden directory", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	// As a Windows tool reads them, still judged: `secrets\key` is
	// secrets/key.
	for _, path := range []string{`secrets\key`, `notes\..\secrets\key`} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
	}
	// A name with a backslash outside the forbidden places is allowed.
	args, err := json.Marshal(map[string]string{"path": `notes\draft.txt`})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}
