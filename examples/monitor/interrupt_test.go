package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTestsProcesses lists the pids of run_tests's shell (its script names
// example.com/pkg$i), of any program on the machine.
func runTestsProcesses(t *testing.T) []string {
	t.Helper()
	var pids []string
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), "example.com/pkg$i") {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

// TestAttackS30CtrlCLeavesTheTestsRunning: run_tests starts its shell in a
// process group of its own (so it can kill the whole tree), which the
// terminal's Ctrl-C does not reach. The example must kill it when it is
// interrupted, not exit and leave it running.
func TestAttackS30CtrlCLeavesTheTestsRunning(t *testing.T) {
	require.Empty(t, runTestsProcesses(t), "another run_tests is running: the check would be unsure")
	bin := filepath.Join(t.TempDir(), "monitor")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	started := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "output    c1  ok  example.com/pkg1") {
			started = true
			break
		}
	}
	require.True(t, started, "run_tests printed its first package")
	require.NotEmpty(t, runTestsProcesses(t), "run_tests's shell runs")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(discard{}) }()
	_ = cmd.Wait()
	left := runTestsProcesses(t)
	for _, pid := range left {
		// Clean up what the old code left, by the pid found.
		if p, err := strconv.Atoi(pid); err == nil {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	assert.Empty(t, left, "run_tests's shell outlived the interrupted example")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
