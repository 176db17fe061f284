package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS17ERunscTakesTheCommandsGoRuntimeEnv: runsc is a Go program
// that runs on the host, as root when the program is, and its sentry (the
// sandbox's kernel) and gofer are runsc too. The run's environment is the
// command's (the OCI spec carries it into the sandbox), and it must not
// steer the Go runtime of runsc: GOGC=off or a GOMEMLIMIT would leave the
// sentry's heap to grow with no collection, GOMAXPROCS and GODEBUG change
// how it schedules and behaves. GODEBUG=inittrace=1 shows it: every Go
// program that takes it prints a line for each package it initializes.
func TestAttackS17ERunscTakesTheCommandsGoRuntimeEnv(t *testing.T) {
	sb := engine(t, EngineGVisor, WithWorkspace(workspaceDir(t)))
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"sh", "-c", `echo "$GODEBUG"`},
		Env:    []string{"GODEBUG=inittrace=1"},
		Limits: Limits{Timeout: 60 * time.Second},
	})
	require.NoError(t, err, "%v", out)
	assert.NotContains(t, string(out.Stderr), "init ", "runsc's Go runtime took the command's GODEBUG: %.300s", out.Stderr)
	// The command still gets it.
	assert.Equal(t, "inittrace=1\n", string(out.Stdout))
}
