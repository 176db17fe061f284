package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// bash expands {a,b} alternatives before a leading ~ or $VAR:
// "{~,x}/.aws/credentials" is ~/.aws/credentials, then
// HOME/.aws/credentials. The policy expanded ~ and $VAR only in the
// argument as written, and judged each alternative as written, so the
// home-relative forbidden pattern did not see it. Seen failing first:
// both were allowed. Each alternative is judged as a path argument now.
func TestAttackS26ReviewBraceAlternativeWithTilde(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".aws"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("x"), 0o600))
	t.Setenv("HOME", home)
	p, err := policy.Parse([]byte(fmt.Sprintf(`global: {forbidden_paths: [%q]}`, home+"/.aws/**")), policy.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"{~,x}/.aws/credentials", "{$HOME,x}/.aws/credentials"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	args, err := json.Marshal(map[string]string{"path": "{~,x}/notes.txt"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
	// Braces a variable's value brings are not expanded again, as bash
	// does not: a value that names itself ends.
	t.Setenv("TOOLBELT_LOOP", "{$TOOLBELT_LOOP,b}")
	args, err = json.Marshal(map[string]string{"path": "$TOOLBELT_LOOP"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}
