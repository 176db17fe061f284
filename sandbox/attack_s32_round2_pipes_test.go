package sandbox

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A running command's output pipes are reachable by name through
// /proc/PID/fd/1 of any process of the run that holds them, for a host
// process that passes the ptrace read check on it (a process of the same
// uid; Yama, where there is one, guards attaching, not reading), and the
// open is then checked against the pipe's owner and mode. f2f09b4 gives the
// pipes to the command's user so that the command can reopen them
// (/dev/stderr): by default that is uid 65534 on the host, which any
// "nobody" daemon and any process run WithUser(65534, 65534) have. Such a
// process must neither read a running sandboxed command's output (taking
// it from the program) nor write into it (output the model reads as the
// command's).
func TestAttackS32Round2OutputPipesFromTheHost(t *testing.T) {
	requireRoot(t)
	for _, c := range []struct {
		name string
		sb   func(t *testing.T) Sandbox
	}{
		{"bwrap", func(t *testing.T) Sandbox { return engine(t, EngineBwrap) }},
		{"bwrap idmapped workspace", func(t *testing.T) Sandbox { return engine(t, EngineBwrap, WithWorkspace(workspaceDir(t))) }},
		{"process as 65534", func(t *testing.T) Sandbox { return engine(t, EngineProcess, WithUser(65534, 65534)) }},
		{"bwrap as 65534", func(t *testing.T) Sandbox { return engine(t, EngineBwrap, WithUser(65534, 65534)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			attack, victim := s32r2PipeAttack(t, c.sb(t))
			assert.NotContains(t, attack, "OPENED-READ", "a host process of uid 65534 opened a running command's output pipe for reading")
			assert.NotContains(t, attack, "WROTE", "a host process of uid 65534 wrote into a running command's output")
			assert.NotContains(t, victim, "INJECTED", "the victim's output holds what another host process wrote")
		})
	}
}

// The landlock engine's commands are host uid 65534 and own their pipes
// (so that they can reopen them), which are write-only (0200): a host
// process of that uid cannot read a running command's output, though it
// can write into it (docs/sandbox.md).
func TestAttackS32Round2LandlockOutputNotReadableFromTheHost(t *testing.T) {
	requireRoot(t)
	attack, _ := s32r2PipeAttack(t, engine(t, EngineLandlock))
	assert.Contains(t, attack, "LINK", "the attacker did not reach the victim's descriptors")
	assert.NotContains(t, attack, "OPENED-READ", "a host process of uid 65534 opened a running landlock command's output pipe for reading")
}

// s32r2PipeAttack starts a long command in victim and, while it runs, a
// process as host uid 65534 that opens each of the run's processes'
// /proc/PID/fd/1 to read (OPENED-READ) and to write (WROTE, and a line in
// the victim's output). It returns the attacker's and the victim's stdout.
func s32r2PipeAttack(t *testing.T, victim Sandbox) (attack, victimOut string) {
	t.Helper()
	marker := "s32r2-pipes-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	done := make(chan *Outcome, 1)
	go func() {
		var once bool
		out, _ := victim.Run(ctx, Spec{
			Argv:   []string{"sh", "-c", "echo up; sleep 60; echo " + marker},
			Limits: Limits{Timeout: 70 * time.Second},
			OnOutput: func(string, []byte) {
				if !once {
					once = true
					close(started)
				}
			},
		})
		done <- out
	}()
	var out *Outcome
	select {
	case <-started:
	case out = <-done:
		t.Fatalf("the victim's run ended before it started its command: %+v", out)
	}
	var pids []string
	for _, p := range hostProcsWith(marker) {
		pids = append(pids, strconv.Itoa(p))
	}
	require.NotEmpty(t, pids, "no process of the victim's run found")

	// Only the victim's processes, given by pid: the attacker's own
	// output is a pipe of uid 65534 too, and so may be other runs' on
	// this machine.
	const script = `for p in "$@"; do
  l=$(readlink /proc/$p/fd/1 2>/dev/null) || { echo "NO-ACCESS $p"; continue; }
  echo "LINK $p $l"
  case $l in pipe:*) ;; *) continue ;; esac
  (: < /proc/$p/fd/1) 2>/dev/null && echo "OPENED-READ $p"
  (echo "INJECTED-S32R2 through $p" > /proc/$p/fd/1) 2>/dev/null && echo "WROTE $p"
done; echo end`
	attacker := engine(t, EngineProcess, WithUser(65534, 65534))
	a := mustRun(t, attacker, Spec{Argv: append([]string{"sh", "-c", script, "sh"}, pids...)})
	t.Logf("victim's processes %v; attacker's stdout:\n%s", pids, a.Stdout)
	cancel()
	out = <-done
	require.NotNil(t, out)
	t.Logf("victim's stdout: %q", out.Stdout)
	require.Contains(t, string(a.Stdout), "end", "the attack did not run")
	return string(a.Stdout), string(out.Stdout)
}
