package shell_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/proctest"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func openFDs(t testing.TB) int {
	t.Helper()
	n, err := proctest.OpenFDs()
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return n
}

// procs lists the processes below this one, and every process whose
// command line holds marker wherever it went ("pid state"), zombies
// included.
func procs(marker string) (below, marked []string) { return proctest.Processes(marker) }

// killMarked ends the processes this test started that still run with
// marker on their command line (so that a failing test leaves none).
func killMarked(marker string) {
	_, marked := procs(marker)
	for _, m := range marked {
		if pid, err := strconv.Atoi(strings.Fields(m)[0]); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

type shellHoldings struct {
	goroutines, fds int
	below, marked   []string
}

// shellHeld waits up to 5 s for the counts to come down to base's, and
// returns them then.
func shellHeld(t testing.TB, base *shellHoldings, marker string) shellHoldings {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var h shellHoldings
		h.goroutines, h.fds = runtime.NumGoroutine(), openFDs(t)
		h.below, h.marked = procs(marker)
		if base == nil || time.Now().After(deadline) ||
			(h.goroutines <= base.goroutines && h.fds <= base.fds && len(h.below) <= len(base.below) && len(h.marked) <= len(base.marked)) {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Bash calls that end every way (success, a non-zero exit, the call's
// timeout, the caller cancelling mid-run, output over the cap, the shell
// killing itself, a command leaving a child behind in its process group
// or holding its output open) leave no goroutines, files, processes or
// zombies behind, in each engine.
func TestLeakBashCallsEveryWay(t *testing.T) {
	for name, rounds := range map[string]int{"process": 100, "bwrap": 40} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sb, err := sandbox.New(name, sandbox.WithWorkspace(dir), sandbox.WithLimits(sandbox.Limits{Timeout: 20 * time.Second, OutputBytes: 1 << 20}))
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s must be available in CI: %v", name, err)
				}
				t.Skipf("%s: %v", name, err)
			}
			leakBash(t, sb, dir, rounds)
		})
	}
}

func leakBash(t *testing.T, sb sandbox.Sandbox, dir string, rounds int) {
	ws := mustWorkspace(t, dir)
	b, err := shell.NewBash(sb, ws, shell.WithLimits(sandbox.Limits{OutputBytes: 64 << 10}))
	require.NoError(t, err)
	short, err := shell.NewBash(sb, ws, shell.WithLimits(sandbox.Limits{Timeout: 50 * time.Millisecond}))
	require.NoError(t, err)
	marker := fmt.Sprintf("97%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000)
	t.Cleanup(func() { killMarked(marker) })

	run := func(ctx context.Context, tl *shell.Bash, cmd string) *tool.Error {
		_, err := tl.Run(ctx, bashCall(cmd))
		return tool.AsError(err)
	}
	round := func() {
		require.Nil(t, run(context.Background(), b, "echo hi"))
		assert.Equal(t, tool.CodeNonZeroExit, run(context.Background(), b, "exit 3").Code)
		assert.NotNil(t, run(context.Background(), short, "sleep "+marker))
		ctx, cancel := context.WithCancel(context.Background())
		ctx = tool.WithEmitter(ctx, func(ev tool.Event) {
			if ev.Kind == tool.EventOutput {
				cancel() // it runs
			}
		})
		assert.NotNil(t, run(ctx, b, "echo started; sleep "+marker))
		cancel()
		// Output over the cap: cut, and a flood, killed.
		require.Nil(t, run(context.Background(), b, "head -c 500000 /dev/zero"))
		assert.Equal(t, tool.CodeResourceLimit, run(context.Background(), b, "cat /dev/zero").Code)
		assert.NotNil(t, run(context.Background(), b, "kill -9 $$"))
		// A child left running in the group, and one holding stdout open.
		_ = run(context.Background(), b, "sleep "+marker+" & echo left")
		_ = run(context.Background(), short, "sleep "+marker+" >&1 & exit 0")
	}
	round()
	base := shellHeld(t, nil, marker)
	start := time.Now()
	for range rounds {
		round()
	}
	took := time.Since(start)
	after := shellHeld(t, &base, marker)
	t.Logf("%d rounds of 9 calls in %v: goroutines %d -> %d, fds %d -> %d, processes below %v -> %v, left running %v -> %v",
		rounds, took.Round(time.Millisecond), base.goroutines, after.goroutines, base.fds, after.fds, base.below, after.below, base.marked, after.marked)
	assert.LessOrEqual(t, after.goroutines, base.goroutines+5, "goroutines")
	assert.LessOrEqual(t, after.fds, base.fds+5, "open files")
	assert.LessOrEqual(t, len(after.below), len(base.below), "processes below this one: %v", after.below)
	assert.LessOrEqual(t, len(after.marked), len(base.marked), "commands left running: %v", after.marked)
}
