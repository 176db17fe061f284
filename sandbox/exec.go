package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// drainGrace bounds how long output is still read after the process group
// was killed. Only a process that left the group (setsid, process engine)
// can hold a pipe that long; the pipe is then closed under it.
const drainGrace = 500 * time.Millisecond

// readBufs holds the output buffers across runs.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// group is the process group of a run. Killing it after the leader has been
// reaped could hit a recycled id, so kill refuses once reaped is set; the
// leader is reaped only after the last kill.
type group struct {
	mu      sync.Mutex
	pgid    int
	reaped  bool
	session bool // kill the session too (plan.session)
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pgid > 0 && !g.reaped {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
		if g.session {
			// The leader started the session (Setsid), so its id is
			// the group's, and it names no other session while the
			// leader is unreaped.
			killSession(g.pgid)
		}
	}
}

func (g *group) markReaped() {
	g.mu.Lock()
	g.reaped = true
	g.mu.Unlock()
}

// execute runs a plan: own process group, stdin from /dev/null, output through
// pipes read here, the group killed on timeout, cancel, flood and exit.
//
// A run that ends by itself starts no goroutine: the timeout and the caller's
// context kill the group through context.AfterFunc (a goroutine only when it
// fires; no watcher, unlike exec.CommandContext), and this goroutine polls
// both pipes and the leader's exit through a pidfd (see streams.pump).
func execute(ctx context.Context, engine string, p *plan, lim Limits, onOut func(string, []byte)) (*Outcome, error) {
	runCtx := ctx
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	if err := runCtx.Err(); err != nil {
		return nil, ctxError(engine, err)
	}

	pipes, err := openStreams()
	if err != nil {
		return nil, newError(CodeCreateFailed, engine, "", err, "creating the output pipes")
	}

	g := &group{session: p.session && !p.pidns}
	// exec.Command, not CommandContext: the context is watched below with
	// context.AfterFunc. With *os.File outputs exec starts no copying
	// goroutine, so there is no I/O for a WaitDelay to bound; the pipes are
	// bounded by drainGrace in pump.
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = p.env
	cmd.Dir = p.dir
	cmd.Stdin = nil // the null device
	cmd.Stdout = pipes.w[0]
	cmd.Stderr = pipes.w[1]
	cmd.SysProcAttr = sysProcAttr(p)
	cmd.ExtraFiles = p.extra

	// The command's user owns its output pipes where the plan says so:
	// reopening one, as `echo err > /dev/stderr` does through
	// /proc/self/fd/2, is checked against the pipe's owner and mode (0600)
	// as a file's open is, and failed on bwrap
	// (TestCommandReopensItsOwnOutput).
	// Write-only (0200): the command reopens them to write, and another
	// process of its uid (landlock's host 65534) may not read the output
	// through /proc/PID/fd.
	if c := p.cred; c != nil && p.ownPipes {
		for _, w := range pipes.w {
			if err := errors.Join(w.Chown(int(c.Uid), int(c.Gid)), w.Chmod(0o200)); err != nil {
				pipes.closeWrite()
				pipes.closeRead()
				return nil, newError(CodeCreateFailed, engine, "", err, "giving the output pipes to uid %d", c.Uid)
			}
		}
	}
	// Only stdio and the plan's extra files may reach the command.
	if err := closeOnExecAll(); err != nil {
		pipes.closeWrite()
		pipes.closeRead()
		return nil, newError(CodeCreateFailed, engine, "", err, "marking this process's descriptors close-on-exec")
	}
	start := time.Now()
	if p.start != nil {
		err = p.start(cmd)
	} else {
		err = cmd.Start()
	}
	pipes.closeWrite()
	if err != nil {
		pipes.closeRead()
		return nil, newError(CodeCreateFailed, engine, "", err, "starting %q", p.argv[0])
	}
	g.mu.Lock()
	g.pgid = cmd.Process.Pid
	g.mu.Unlock()
	// Registered once the group id is known, so a context that is already
	// done kills the group rather than nothing. killed is closed when the
	// kill has run, so that its goroutine never outlives the run.
	killed := make(chan struct{})
	stopKill := context.AfterFunc(runCtx, func() { g.kill(); close(killed) })

	caps := [2]*capture{newCapture(lim.OutputBytes), newCapture(lim.OutputBytes)}
	// pump returns once the leader has exited (unreaped, its group killed)
	// and the pipes are drained.
	waitErr, flooded, ioErr := pipes.pump(cmd.Process.Pid, g, caps, onOut)

	if !stopKill() {
		<-killed
	}
	g.markReaped()
	werr := cmd.Wait()
	dur := time.Since(start)

	out := &Outcome{
		Engine:      engine,
		Argv:        p.argv,
		Limits:      lim,
		Duration:    dur,
		Unenforced:  p.unenforced,
		Stdout:      caps[0].bytes(),
		Stderr:      caps[1].bytes(),
		StdoutBytes: caps[0].total,
		StderrBytes: caps[1].total,
		Truncated:   caps[0].truncated() || caps[1].truncated(),
		ExitCode:    -1,
	}
	ps := cmd.ProcessState
	if ioErr != nil && ps != nil {
		return out, newError(CodeCrashed, engine, "", ioErr, "reading the command's output failed; the command was killed")
	}
	if ps == nil {
		if waitErr == nil {
			waitErr = werr
		}
		return out, newError(CodeCrashed, engine, "", waitErr, "waiting for the command failed")
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		out.Usage = Usage{
			UserCPU:   time.Duration(ru.Utime.Nano()),
			SystemCPU: time.Duration(ru.Stime.Nano()),
			MaxRSS:    int64(ru.Maxrss) * 1024, // int32 on 32-bit Linux
		}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			out.Signal = ws.Signal()
		case ws.Exited():
			out.ExitCode = ws.ExitStatus()
			if p.exitSignals && out.ExitCode > 128 && out.ExitCode < 128+65 {
				out.Signal = syscall.Signal(out.ExitCode - 128)
			}
		}
	}
	return out, classify(engine, ctx, runCtx, out, flooded)
}

// classify turns an outcome into the run's error, most specific cause first.
func classify(engine string, parent, runCtx context.Context, out *Outcome, flooded bool) error {
	// Whose deadline: the caller's when it is the run's (it came first).
	pd, callers := parent.Deadline()
	rd, _ := runCtx.Deadline()
	switch {
	case runCtx.Err() != nil && errors.Is(parent.Err(), context.Canceled):
		return ctxError(engine, parent.Err())
	case runCtx.Err() != nil && callers && !pd.After(rd):
		out.TimedOut, out.KilledBy = true, LimitTimeout
		return ctxError(engine, context.DeadlineExceeded)
	case runCtx.Err() != nil:
		out.TimedOut, out.KilledBy = true, LimitTimeout
		return newError(CodeTimeout, engine, LimitTimeout, context.DeadlineExceeded,
			"the command ran past its %s timeout and its process tree was killed", out.Limits.Timeout)
	case flooded:
		out.KilledBy = LimitOutput
		return newError(CodeResourceLimit, engine, LimitOutput, nil,
			"the command flooded its output (more than %d bytes past the %d-byte cap) and was killed; reduce the output, e.g. pipe it through head or grep",
			floodSlack(out.Limits.OutputBytes), out.Limits.OutputBytes)
	case out.Signal == syscall.SIGXCPU:
		out.KilledBy = LimitCPU
		return newError(CodeResourceLimit, engine, LimitCPU, nil, "the command used up its %s of CPU time", out.Limits.CPUTime)
	case out.Signal == syscall.SIGXFSZ:
		out.KilledBy = LimitFileSize
		return newError(CodeResourceLimit, engine, LimitFileSize, nil, "the command tried to write a file larger than %d bytes", out.Limits.FileSize)
	case out.Signal != 0:
		return newError(CodeCrashed, engine, "", nil, "the command was killed by signal %d (%v)", int(out.Signal), out.Signal)
	case out.ExitCode != 0:
		return newError(CodeNonZeroExit, engine, "", nil, "exit status %d", out.ExitCode)
	}
	return nil
}

// ctxError reports a run stopped by the caller: a deadline is a timeout
// (E3103), a cancellation carries context.Canceled and no code.
func ctxError(engine string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return newError(CodeTimeout, engine, LimitTimeout, err, "the caller's deadline expired")
	}
	return &cancelledError{engine: engine, err: err}
}

type cancelledError struct {
	engine string
	err    error
}

func (e *cancelledError) Error() string {
	return "sandbox (" + e.engine + "): run cancelled: " + e.err.Error()
}
func (e *cancelledError) Unwrap() error { return e.err }
