package executor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// scProbe measures overlap: how many calls are inside a section at once,
// and the most there ever were.
type scProbe struct {
	active, max atomic.Int32
	calls       atomic.Int64

	mu      sync.Mutex
	entered chan struct{} // closed at the next enter (waitCalls)
}

func (p *scProbe) enter() int32 {
	n := p.active.Add(1)
	for {
		m := p.max.Load()
		if n <= m || p.max.CompareAndSwap(m, n) {
			break
		}
	}
	// Counted and announced last: a waiter (waitCalls) then sees active
	// and max as they are with this call inside.
	p.calls.Add(1)
	p.mu.Lock()
	if p.entered != nil {
		close(p.entered)
		p.entered = nil
	}
	p.mu.Unlock()
	return n
}

func (p *scProbe) leave() { p.active.Add(-1) }

// waitCalls waits until at least n calls have entered, and fails t if
// they have not within a minute (a hang, not a slow machine).
func (p *scProbe) waitCalls(t testing.TB, n int64) {
	t.Helper()
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		p.mu.Lock()
		if p.entered == nil {
			p.entered = make(chan struct{})
		}
		next := p.entered
		p.mu.Unlock()
		if p.calls.Load() >= n {
			return
		}
		select {
		case <-next:
		case <-timeout.C:
			t.Fatalf("%d calls entered, want %d", p.calls.Load(), n)
		}
	}
}

type scPathArgs struct {
	Path string `json:"path,omitempty"`
	Line string `json:"line,omitempty"`
}

// scPathResource declares access to the "path" argument.
func scPathResource(access tool.Access) tool.Option {
	return tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a scPathArgs
		if json.Unmarshal(args, &a) != nil || a.Path == "" {
			return nil
		}
		return []tool.Resource{{Key: "file:" + a.Path, Access: access}}
	})
}

// scAppendTool appends a line to a file in two separate O_APPEND writes
// (the text, then the newline), so that without a lock two lines can
// interleave.
func scAppendTool(name string, probe *scProbe, locked bool) tool.Tool {
	var opts []tool.Option
	if locked {
		opts = append(opts, scPathResource(tool.Write))
	}
	return tool.Func(name, "Append a line to a file", func(ctx context.Context, in scPathArgs) (string, error) {
		probe.enter()
		defer probe.leave()
		f, err := os.OpenFile(in.Path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := f.WriteString(in.Line); err != nil {
			return "", err
		}
		time.Sleep(20 * time.Microsecond) // widen the window between the two writes
		if _, err := f.WriteString("\n"); err != nil {
			return "", err
		}
		return "ok", nil
	}, opts...)
}

// scGateTool enters probe, then waits until release is closed or ctx ends.
func scGateTool(name string, probe *scProbe, release <-chan struct{}, opts ...tool.Option) tool.Tool {
	return tool.Func(name, "Wait at a gate", func(ctx context.Context, in scPathArgs) (string, error) {
		probe.enter()
		defer probe.leave()
		select {
		case <-release:
			return "released", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, opts...)
}

type scEmpty struct{}

func scNoop() tool.Tool {
	return tool.Func("noop", "Do nothing", func(context.Context, scEmpty) (string, error) { return "ok", nil })
}

func scRegistry(t testing.TB, tools ...tool.Tool) *registry.Registry {
	t.Helper()
	reg := registry.New()
	for _, tl := range tools {
		require.NoError(t, reg.Register(tl))
	}
	return reg
}

func scCall(id, name string, args any) tool.Call {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return tool.Call{ID: id, Name: name, Args: b}
}

// scProcTool runs `sh -c script` as a real process tree in its own process
// group, streams its stdout lines as output events, and reports each line
// that is a pid (the script prints its children's pids) on pids.
func scProcTool(name string, pids chan<- int) tool.Tool {
	type in struct {
		Script string `json:"script"`
	}
	return tool.Func(name, "Run a shell script", func(ctx context.Context, a in) (string, error) {
		cmd := osexec.CommandContext(ctx, "sh", "-c", a.Script)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", err
		}
		if err := cmd.Start(); err != nil {
			return "", err
		}
		if pids != nil {
			pids <- cmd.Process.Pid
		}
		var text strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			tool.EmitOutput(ctx, "stdout", []byte(line+"\n"))
			text.WriteString(line + "\n")
			if pid, err := strconv.Atoi(strings.TrimPrefix(line, "pid ")); err == nil && pids != nil && strings.HasPrefix(line, "pid ") {
				pids <- pid
			}
		}
		if err := cmd.Wait(); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("script failed: %w", err)
		}
		return text.String(), nil
	})
}

// scAlive reports whether a process with pid exists (a reaped one does not).
func scAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	// A zombie still answers kill 0; treat it as gone.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}

// scApproval is an approval-like extension: for the named tools it emits
// approval_requested, then waits for a decision on decide or for ctx to
// end (a cancelled job), and emits approval_decided.
type scApproval struct {
	tools  map[string]bool
	decide chan bool
}

func (a *scApproval) ext() extension.Extension {
	return extension.Func("test-approval", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			if !a.tools[req.Call.Name] {
				return next(ctx, req)
			}
			tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalRequested, Reason: "test asks"})
			select {
			case ok := <-a.decide:
				d := "approve"
				if !ok {
					d = "deny"
				}
				tool.Emit(ctx, tool.Event{Kind: tool.EventApprovalDecided, Decision: d})
				if !ok {
					return tool.Fail(&req.Call, tool.CodeApprovalDenied, "denied by test")
				}
				return next(ctx, req)
			case <-ctx.Done():
				return tool.Failure(&req.Call, ctx.Err())
			}
		}
	})
}

// scCollect drains ch until it is closed or until stop returns true.
func scCollect(ch <-chan tool.Event, stop func(tool.Event) bool, within time.Duration) []tool.Event {
	var out []tool.Event
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
			if stop != nil && stop(ev) {
				return out
			}
		case <-timer.C:
			return out
		}
	}
}

type atomicFlag struct{ v atomic.Bool }

func (f *atomicFlag) set()      { f.v.Store(true) }
func (f *atomicFlag) get() bool { return f.v.Load() }

func onceFunc(f func()) func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			f()
		}
	}
}

// scLeakCheck snapshots the goroutines now; the function it returns fails
// the test if any other goroutine is still alive (goleak retries a while).
//
//	defer scLeakCheck(t)()
func scLeakCheck(t *testing.T) func() {
	opt := goleak.IgnoreCurrent()
	return func() {
		t.Helper()
		goleak.VerifyNone(t, opt)
	}
}

// scHedge is an extension that runs the rest of the chain twice at once for
// every call, each run with its own copy of the request, and returns the
// first answer after both have finished.
func scHedge() extension.Extension {
	return extension.Func("hedge", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			out := make(chan *tool.Result, 2)
			for range 2 {
				r := *req
				go func() { out <- next(ctx, &r) }()
			}
			first := <-out
			<-out
			return first
		}
	})
}

// scAppendless is a no-op tool that declares a write on one resource.
func scAppendless() tool.Tool {
	res := []tool.Resource{{Key: "file:x", Access: tool.Write}}
	return tool.New("touch", "Touch nothing", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil },
		tool.WithResources(func(json.RawMessage) []tool.Resource { return res }))
}
