//go:build linux

package mcptool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// reusedPidEnv makes the test binary the init of a pid namespace of its
// own (see TestReviewDeadServersPidReusedIsNotKilled), where it can give a
// dead server's process id to another process on purpose.
const reusedPidEnv = "MCPTOOL_REVIEW_REUSED_PID"

func init() {
	if how := os.Getenv(reusedPidEnv); how != "" {
		os.Exit(reusedPidHelper(how))
	}
}

// reusedPidHelper connects to a stdio server, kills it and waits until the
// session has noticed and reaped it; then it starts a process group leader
// with the dead server's process id (setting the namespace's last pid, as
// checkpoint/restore tools do) and ends the session the way how says:
// "close" (Client.Close) or "redial" (the next use of the client). It
// returns 0 if that process survives, 1 if it was killed, 2 if the setup
// failed.
func reusedPidHelper(how string) int {
	fail := func(f string, a ...any) int { fmt.Fprintf(os.Stderr, f+"\n", a...); return 2 }
	ctx := context.Background()
	c, err := Connect(ctx, Command(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fixtureEnv+"=1", reusedPidEnv+"=")
		return cmd
	}))
	if err != nil {
		return fail("connect: %v", err)
	}
	pid := c.PID()
	if pid <= 1 {
		return fail("no server: %d", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fail("kill the server: %v", err)
	}
	// Reaped when its id is free (a zombie still takes signal 0). A poll:
	// the SDK's own cmd.Wait reaps it, and nothing tells this process when
	// that has happened but the id coming free.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			return fail("server %d not reaped", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The session has seen its end: the client's conn closes done when
	// the SDK session's Wait returns.
	c.mu.Lock()
	cn := c.cur
	c.mu.Unlock()
	if cn == nil {
		return fail("no session")
	}
	select {
	case <-cn.done:
	case <-time.After(10 * time.Second):
		return fail("the session of dead server %d did not end", pid)
	}
	if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
		return fail("ns_last_pid: %v", err)
	}
	other := exec.Command("sleep", "30")
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := other.Start(); err != nil {
		return fail("start: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- other.Wait() }()
	defer func() {
		_ = other.Process.Kill()
		<-exited
	}()
	if other.Process.Pid != pid {
		return fail("the id was not reused: %d, not %d", other.Process.Pid, pid)
	}
	switch how {
	case "close":
		_ = c.Close()
	case "redial":
		_, _ = c.Session(ctx)
		defer c.Close()
	}
	select {
	case err := <-exited:
		exited <- err
		fmt.Fprintf(os.Stderr, "process %d, another program's group leader with the dead server's id, was killed: %v\n", pid, err)
		return 1
	case <-time.After(500 * time.Millisecond):
		return 0
	}
}

// Once a stdio server is dead and reaped (the SDK reaps it when its stdout
// ends), its process id is free: the kernel gives it to the next process
// once the ids wrap (32768 of them by default). Ending the session later
// (Client.Close, or the next call, which finds it over) must not kill the
// process group of whatever process has that id by then. The test makes
// the reuse happen at once, in a pid namespace of its own.
func TestReviewDeadServersPidReusedIsNotKilled(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a pid namespace and its ns_last_pid need root")
	}
	for _, how := range []string{"close", "redial"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), reusedPidEnv+"="+how)
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID, Pdeathsig: syscall.SIGKILL}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee) && ee.ExitCode() == 1:
				t.Fatalf("%s", out)
			default:
				t.Fatalf("helper: %v: %s", err, out)
			}
		})
	}
}
