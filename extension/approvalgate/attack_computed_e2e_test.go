package approvalgate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A deny rule holds for a command whose name or arguments bash computes
// at run time, or that the line feeds to a shell as text, through a real
// bash tool: before, under allow_all, shell(touch *) let each of these
// run, and the file was made.
func TestDenyRuleHoldsForAComputedCommandThroughBash(t *testing.T) {
	run, made := denyTouchBash(t)
	for _, cmd := range []string{
		"${x:-touch} pwned",
		"$(printf touch) pwned",
		`a=(touch pwned); "${a[@]}"`,
		"echo pwned | xargs touch",
		"printf 'touch pwned' | sh",
		`printf '\x74ouch pwned' | bash`,
		`printf '\x74ouch pwned' > s.sh; . ./s.sh`,
	} {
		res, err := run(cmd)
		require.Error(t, err, cmd)
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code, cmd)
		assert.False(t, made(), "%q ran: the file was made", cmd)
	}
	for _, cmd := range []string{"echo touch pwned", "x=ok; echo $x; ls"} {
		_, err := run(cmd)
		assert.NoError(t, err, cmd)
	}
}
