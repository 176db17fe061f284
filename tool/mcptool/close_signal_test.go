package mcptool

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stdio server that does not end when its input closes is sent SIGTERM
// after the terminate timeout: that is how Close ends it, not a failure,
// and Close says nothing. It returned "signal: terminated", which failed
// a leak test in CI on a machine slow enough that the server took longer
// than its one-second timeout to exit.
func TestCloseOfAServerEndedByItsSignalIsClean(t *testing.T) {
	c, err := Connect(context.Background(), Command(func() *exec.Cmd {
		// The server answers, and when its input ends, its shell waits on:
		// only the signal ends it.
		cmd := exec.Command("sh", "-c", `"$0" -test.run='^$'; sleep 30`, os.Args[0])
		cmd.Env = append(os.Environ(), fixtureEnv+"=1")
		return cmd
	}), WithTerminateTimeout(100*time.Millisecond))
	require.NoError(t, err)
	_, err = callTool(context.Background(), t, c, "echo")
	require.NoError(t, err)
	start := time.Now()
	assert.NoError(t, c.Close(), "the server ended by the signal Close sent")
	assert.Less(t, time.Since(start), 10*time.Second)
}
