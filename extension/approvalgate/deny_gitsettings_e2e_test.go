package approvalgate_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny rule holds for a command git runs from a setting or an option's
// value, through a real bash tool and real git: before, under allow_all,
// shell(touch *) let each of these run, and git made the file.
func TestDenyRuleHoldsForCommandsGitRunsThroughBash(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is required under CI: %v", err)
		}
		t.Skip("git is not installed")
	}
	run, made := denyTouchBash(t)
	// The tool runs git, and the lines below would run touch.
	_, err := run("git init -q . && git -c core.fsmonitor=true status >/dev/null && echo x > pwned")
	require.NoError(t, err)
	require.True(t, made(), "the allowed git line made no file")
	for _, cmd := range []string{
		"git init -q . && git -c core.fsmonitor='touch pwned' status",
		"git init -q . && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status",
		"git init -q . && git -c core.fsmonitor=$'\\x74ouch pwned' status",
		"git init -q . && git ls-remote --upload-pack='touch pwned' .",
	} {
		res, err := run(cmd)
		assert.False(t, made(), "%q ran: the file was made", cmd)
		if assert.Error(t, err, cmd) {
			assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, cmd)
		}
	}
}
