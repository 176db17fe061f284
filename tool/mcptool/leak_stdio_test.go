package mcptool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closingEnv makes the test binary a stdio server whose one tool closes
// the server's stdout (ending the session) and lives on.
const closingEnv = "MCPTOOL_LEAK_CLOSING_SERVER"

func init() {
	if os.Getenv(closingEnv) != "1" {
		return
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "closing", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "closeout", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = os.Stdout.Close()
		select {} // until killed
	})
	_ = srv.Run(context.Background(), &mcp.StdioTransport{})
	select {}
}

// A stdio server that ends the session (closes its stdout) mid-call and
// lives on: the call fails as unavailable at once, the server is ended
// then, and the next call starts a new one. The broken session was closed
// as a healthy one is, waiting the terminate timeout (5 s by default) for
// the server to exit after its stdin closed: every such call took 5 s,
// the server running meanwhile. Here the terminate timeout is an hour: a
// call that waited for it would hold the test until its timeout, which is
// how it fails, without timing anything.
func TestLeakStdioServerClosingTheSessionEndsAtOnce(t *testing.T) {
	base := held(t, nil, 0)
	c, err := Connect(context.Background(), Command(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), closingEnv+"=1")
		return cmd
	}), WithTerminateTimeout(time.Hour))
	require.NoError(t, err)
	defer closeWithin(t, c, 10*time.Second)
	const n = 3
	start := time.Now()
	for range n {
		_, err := callTool(context.Background(), t, c, "closeout")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "unavailable")
	}
	took := time.Since(start)
	live := held(t, &base, 2*time.Second)
	t.Logf("%d sessions ended by the server in %v: processes %v", n, took.Round(time.Millisecond), live.children)
	assert.Empty(t, live.children, "servers whose session ended")
}

// marked lists the processes whose command line holds marker.
func marked(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(cl), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// closeWithin closes c and fails the test if Close takes longer than d.
func closeWithin(t *testing.T, c *Client, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), "signal: killed") {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(d):
		t.Errorf("Close still waits after %v", d)
	}
}

// A stdio server that dies while a process it started still holds its
// stdout (a helper, a child the server forked) never shows the client an
// end of file. The call in flight waited for an answer that could not
// come, forever without a deadline, and the dead server stayed a zombie
// and its child ran on until some later call failed writing to it.
// The client watches the server process itself: its death ends the
// session, the call fails as unavailable, and the server's group goes.
func TestLeakStdioServerDeadWhileItsChildHoldsStdout(t *testing.T) {
	marker := fmt.Sprintf("59%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000)
	t.Cleanup(func() {
		for _, pid := range marked(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // a child this test's server started
		}
	})
	base := held(t, nil, 0)
	c, err := Connect(context.Background(), Command(func() *exec.Cmd {
		cmd := exec.Command("sh", "-c", `sleep `+marker+` & exec "$0" -test.run='^$'`, os.Args[0])
		cmd.Env = append(os.Environ(), fixtureEnv+"=1")
		return cmd
	}), WithTerminateTimeout(time.Second))
	require.NoError(t, err)
	defer closeWithin(t, c, 5*time.Second) // then the cleanup ends the children

	const deaths = 10
	for range deaths {
		killServerMidCall(t, c, 5*time.Second) // the call has no deadline
	}
	_, err = callTool(context.Background(), t, c, "echo")
	require.NoError(t, err)
	live := held(t, &holdings{goroutines: base.goroutines + 50, fds: base.fds + 20, children: []string{"server", "its child"}}, 5*time.Second)
	t.Logf("%d deaths: processes below %v, children left running %v", deaths, live.children, marked(marker))
	assert.LessOrEqual(t, len(live.children), 2, "one server and its child run, no dead one is left unreaped: %v", live.children)
	assert.LessOrEqual(t, len(marked(marker)), 1, "the dead servers' children are ended")

	closeWithin(t, c, 5*time.Second)
	after := held(t, &base, 8*time.Second)
	assert.LessOrEqual(t, after.goroutines, base.goroutines+leakSlack, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+leakSlack, "open files")
	assert.Empty(t, after.children, "processes")
	assert.Empty(t, marked(marker), "children left running")
}
