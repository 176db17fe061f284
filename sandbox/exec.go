package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

const (
	// waitDelay bounds how long Wait waits for I/O after the command is gone
	// (exec.Cmd.WaitDelay).
	waitDelay = time.Second
	// drainGrace bounds how long output is still read after the process group
	// was killed. Only a process that left the group (setsid, process engine)
	// can hold a pipe that long; its pipe is then closed under it.
	drainGrace = 500 * time.Millisecond
)

// group is the process group of a run. Killing it after the leader has been
// reaped could hit a recycled id, so kill refuses once reaped is set; the
// leader is reaped only after the last kill.
type group struct {
	mu     sync.Mutex
	pgid   int
	reaped bool
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pgid > 0 && !g.reaped {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
}

func (g *group) markReaped() {
	g.mu.Lock()
	g.reaped = true
	g.mu.Unlock()
}

// execute runs a plan: own process group, stdin from /dev/null, output through
// pipes read here, the group killed on timeout, cancel, flood and exit.
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

	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, newError(CodeCreateFailed, engine, "", err, "creating the stdout pipe")
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, newError(CodeCreateFailed, engine, "", err, "creating the stderr pipe")
	}

	g := &group{}
	cmd := exec.CommandContext(runCtx, p.argv[0], p.argv[1:]...)
	cmd.Env = p.env
	cmd.Dir = p.dir
	cmd.Stdin = nil // the null device
	cmd.Stdout = outW
	cmd.Stderr = errW
	cmd.SysProcAttr = sysProcAttr(p.cred)
	cmd.Cancel = func() error { g.kill(); return nil }
	cmd.WaitDelay = waitDelay

	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, newError(CodeCreateFailed, engine, "", err, "starting %q", p.argv[0])
	}
	g.mu.Lock()
	g.pgid = cmd.Process.Pid
	g.mu.Unlock()

	// Readers: each stream into its capture, chunks to the callback.
	var (
		cbMu    sync.Mutex
		flooded bool
		floodMu sync.Mutex
		wg      sync.WaitGroup
	)
	caps := [2]*capture{newCapture(lim.OutputBytes), newCapture(lim.OutputBytes)}
	read := func(r *os.File, c *capture, stream string) {
		defer wg.Done()
		defer r.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if onOut != nil {
					cbMu.Lock()
					onOut(stream, buf[:n])
					cbMu.Unlock()
				}
				if c.write(buf[:n]) {
					// Stop the producer rather than buffer or discard: kill the
					// group and close our end, so anything left gets SIGPIPE.
					floodMu.Lock()
					flooded = true
					floodMu.Unlock()
					g.kill()
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	wg.Add(2)
	go read(outR, caps[0], StreamStdout)
	go read(errR, caps[1], StreamStderr)

	// Wait for the leader to exit without reaping it, so its pid (the group
	// id) cannot be reused while the rest of the group is killed.
	waitErr := waitExited(cmd.Process.Pid)
	g.kill()

	readersDone := make(chan struct{})
	go func() { wg.Wait(); close(readersDone) }()
	select {
	case <-readersDone:
	case <-time.After(drainGrace):
		outR.Close()
		errR.Close()
		<-readersDone
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
			MaxRSS:    ru.Maxrss * 1024,
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
	switch {
	case runCtx.Err() != nil && !(errors.Is(parent.Err(), context.Canceled)):
		out.TimedOut, out.KilledBy = true, LimitTimeout
		return newError(CodeTimeout, engine, LimitTimeout, context.DeadlineExceeded,
			"the command ran past its %s timeout and its process tree was killed", out.Limits.Timeout)
	case runCtx.Err() != nil:
		return ctxError(engine, parent.Err())
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
