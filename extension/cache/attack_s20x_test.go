package cache_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// heldWrite is the built-in write_file, whose run waits for release once
// it has said it started.
type heldWrite struct {
	tool.Tool
	started chan<- struct{}
	release <-chan struct{}
}

func (w heldWrite) Run(ctx context.Context, c tool.Call) (*tool.Result, error) {
	close(w.started)
	<-w.release
	return w.Tool.Run(ctx, c)
}

func (w heldWrite) Resources(args json.RawMessage) []tool.Resource {
	return w.Tool.(tool.ResourceDeclarer).Resources(args)
}

func (w heldWrite) Unwrap() tool.Tool { return w.Tool }

// heldWriteSetup is a workspace whose notes.txt holds v1 (cached by a
// first read), the file tools with write_file held, and an executor with
// the cache inside an approval extension that asks about every call.
// decide answers for the calls named "r"; the others are approved.
func heldWriteSetup(t *testing.T, decide func(approval.Request) approval.Decision) (ex *executor.Executor, started <-chan struct{}, release chan<- struct{}) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("v1"), 0o644))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	st, rel := make(chan struct{}), make(chan struct{})
	reg := registry.New()
	for _, tl := range builtin.Files(ws) {
		if tl.Spec().Name == "write_file" {
			tl = heldWrite{Tool: tl, started: st, release: rel}
		}
		require.NoError(t, reg.Register(tl))
	}
	pol, err := approval.NewPolicy(approval.ModeAlwaysAsk)
	require.NoError(t, err)
	gate := approvalgate.New(approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if req.Call.ID == "r" {
			return decide(req), nil
		}
		return approval.Approved("tester"), nil
	}), approvalgate.WithPolicy(pol))
	ex = executor.MustNew(reg, executor.WithExtensions(gate, gate.Guard(), cache.New()))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "prime", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)})
	require.NoError(t, err)
	require.Equal(t, "v1", res.Text())
	return ex, st, rel
}

// waitQueuedOrDone waits until the call "r" queues for a lock or ends, so
// that a held write is let go only once the read has either been answered
// (from the cache, the bug) or lined up behind it.
func waitQueuedOrDone(t *testing.T, events <-chan tool.Event) {
	t.Helper()
	for ev := range events {
		switch ev.Kind {
		case tool.EventQueued, tool.EventCompleted, tool.EventFailed, tool.EventCancelled:
			return
		}
	}
}

// In a batch [write notes.txt, read other.txt], a person approving the
// read rewrites it to read notes.txt. The read is queued again for
// notes.txt behind the write (executor: hold, relock), but the cache asked
// Behind of the ticket for other.txt, which nobody else wanted, and served
// the v1 it had cached while the write, before it in the batch, still ran.
func TestAttackS20XModifiedBatchReadBehindAWriteIsNotServedFromTheCache(t *testing.T) {
	var started <-chan struct{}
	ex, started, release := heldWriteSetup(t, func(approval.Request) approval.Decision {
		<-started // the write ahead in the batch is running
		return approval.Modified("tester", json.RawMessage(`{"path":"notes.txt"}`))
	})
	events, stop := ex.Subscribe(executor.EventFilter{CallID: "r"})
	defer stop()
	done := make(chan []*tool.Result)
	go func() {
		done <- ex.ExecuteBatch(context.Background(), []tool.Call{
			{ID: "w", Name: "write_file", Args: json.RawMessage(`{"path":"notes.txt","content":"v2"}`)},
			{ID: "r", Name: "read_file", Args: json.RawMessage(`{"path":"other.txt"}`)},
		})
	}()
	waitQueuedOrDone(t, events)
	close(release)
	rs := <-done
	require.True(t, rs[0].OK(), "%v", rs[0].Error)
	require.True(t, rs[1].OK(), "%v", rs[1].Error)
	assert.Equal(t, "v2", rs[1].Text(), "the rewritten read runs after the write before it (%v)", rs[1].Metadata[cache.MetaKey])
}

// A read alone steps aside while a person decides; a write of the same
// file, submitted meanwhile, goes ahead and runs. Approved, the read queues
// again behind that write (executor: StepAside), but the cache asked
// Behind of a call with no ticket at all, and served the v1 it had cached
// while the write still ran.
func TestAttackS20XReadThatSteppedAsideIsNotServedFromTheCache(t *testing.T) {
	asked := make(chan struct{})
	var started <-chan struct{}
	ex, started, release := heldWriteSetup(t, func(approval.Request) approval.Decision {
		close(asked)
		<-started // the write submitted while the read waited is running
		return approval.Approved("tester")
	})
	events, stop := ex.Subscribe(executor.EventFilter{CallID: "r"})
	defer stop()
	read := make(chan *tool.Result)
	go func() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "r", Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)})
		read <- res
	}()
	<-asked
	write := make(chan *tool.Result)
	go func() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "w", Name: "write_file", Args: json.RawMessage(`{"path":"notes.txt","content":"v2"}`)})
		write <- res
	}()
	// Drain the read's events: submitted and approval events come first.
	waitQueuedOrDone(t, events)
	close(release)
	w, r := <-write, <-read
	require.True(t, w.OK(), "%v", w.Error)
	require.True(t, r.OK(), "%v", r.Error)
	assert.Equal(t, "v2", r.Text(), "the read, queued again behind the write, reads what it wrote (%v)", r.Metadata[cache.MetaKey])
}
