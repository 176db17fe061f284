package mcptool

import (
	"context"
	"errors"
	"fmt"
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

// A server that exits just as the terminate timeout ends is reaped by the
// SDK's wait before its SIGTERM is sent: the SDK's Close then fails with
// os.ErrProcessDone ("os: process already finished"), seen failing a leak
// test in CI. The server is gone, which is what Close is for: it is clean.
// Real failures stay failures.
func TestCloseOfAServerThatExitedAtTheTimeoutIsClean(t *testing.T) {
	assert.True(t, closedCleanly(os.ErrProcessDone), "the SDK's Kill of a reaped server")
	assert.True(t, closedCleanly(fmt.Errorf("closing: %w", os.ErrProcessDone)))
	assert.False(t, closedCleanly(nil))
	assert.False(t, closedCleanly(errors.New("closing stdin: broken pipe")))
	assert.False(t, closedCleanly(os.ErrPermission))
}
