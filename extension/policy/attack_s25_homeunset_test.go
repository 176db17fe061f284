package policy_test

import (
	"encoding/json"
	"os"
	"os/user"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A process started without HOME (a systemd system service without User=
// gets none) still has a home: Node's os.homedir (which the MCP
// filesystem server expands "~/" with), bash's ~ and Python's expanduser
// fall back to the password database. The policy expanded ~ with
// os.UserHomeDir, which fails without HOME, and judged "~/.ssh/id_rsa" as
// written: a pattern naming the home directory let the key through.
// Seen failing first: the call was allowed.
func TestAttackS25TildeWithoutHomeIsThePasswdHome(t *testing.T) {
	u, err := user.Current()
	require.NoError(t, err)
	require.NotEmpty(t, u.HomeDir)
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["` + u.HomeDir + `/.ssh/**"]}`))
	require.NoError(t, err)
	spec := readAnySpec(t)
	t.Setenv("HOME", "") // restored after the test
	require.NoError(t, os.Unsetenv("HOME"))
	args, err := json.Marshal(map[string]string{"path": "~/.ssh/id_rsa"})
	require.NoError(t, err)
	rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
	assert.Error(t, err)
	assert.Equal(t, "global.forbidden_paths", rule)
}
