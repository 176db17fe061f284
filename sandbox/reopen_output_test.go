package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A command may reopen its own output: `echo err > /dev/stderr` opens
// /proc/self/fd/2, which the kernel checks against the pipe's owner and
// mode (0600) as it would a file's, so the pipes are the command's user's
// where no other host process has its uid (a bwrap run uid) and on
// landlock (see ownPipes). A run WithUser a shared uid keeps them root's.
func TestCommandReopensItsOwnOutput(t *testing.T) {
	const script = `echo out > /dev/stdout; echo err > /dev/stderr; echo end`
	cases := []struct {
		name string
		sb   func(t *testing.T) Sandbox
	}{
		{"landlock", func(t *testing.T) Sandbox { return engine(t, EngineLandlock) }},
		{"bwrap", func(t *testing.T) Sandbox { return engine(t, EngineBwrap) }},
		{"bwrap workspace", func(t *testing.T) Sandbox { return engine(t, EngineBwrap, WithWorkspace(workspaceDir(t))) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := sh(t, c.sb(t), script)
			assert.Equal(t, "out\nend\n", string(o.Stdout))
			assert.Equal(t, "err\n", string(o.Stderr))
		})
	}
}
