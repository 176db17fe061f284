package approvalgate_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type s14Path struct {
	Path string `json:"path"`
}

type s14HoldKey struct{}

// s14Files counts the writers inside each file and records a writer that
// found another one inside. A run whose context carries a s14HoldKey
// channel reports on it that it is inside, then waits on it.
type s14Files struct {
	mu       sync.Mutex
	inside   map[string]int
	overlaps int
}

func (f *s14Files) writer(name string, opts ...tool.Option) tool.Tool {
	opts = append(opts, tool.WithResources(func(args json.RawMessage) []tool.Resource {
		var a s14Path
		_ = json.Unmarshal(args, &a)
		return []tool.Resource{{Key: "file:" + a.Path, Access: tool.Write}}
	}))
	return tool.Func(name, "Write a file", func(ctx context.Context, in s14Path) (string, error) {
		f.mu.Lock()
		if f.inside[in.Path]++; f.inside[in.Path] > 1 {
			f.overlaps++
		}
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.inside[in.Path]--
			f.mu.Unlock()
		}()
		if hold, ok := ctx.Value(s14HoldKey{}).(chan struct{}); ok {
			hold <- struct{}{}
			<-hold
		}
		return "written " + in.Path, nil
	}, opts...)
}

func (f *s14Files) overlapped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.overlaps
}

func s14Executor(t *testing.T, person approval.Approver, opts ...executor.Option) (*executor.Executor, *s14Files) {
	t.Helper()
	f := &s14Files{inside: map[string]int{}}
	reg := registry.New()
	reg.MustRegister(f.writer("write_approved", tool.WithApproval()), f.writer("write"))
	ax := approvalgate.New(person, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))
	return executor.MustNew(reg, append(opts, executor.WithExtensions(ax, ax.Guard()))...), f
}

func s14Call(id, name, path string) tool.Call {
	return tool.Call{ID: id, Name: name, Args: json.RawMessage(`{"path":"` + path + `"}`)}
}

// s14Free checks that nothing holds or waits for path: under the Refuse
// conflict policy a write is refused at once otherwise.
func s14Free(t *testing.T, ex *executor.Executor, path string) {
	t.Helper()
	res, err := ex.Execute(context.Background(), s14Call("check-"+path, "write", path))
	require.NoError(t, err, "a lock on %s outlived its call: %v", path, res.Error)
}

// An approver who rewrites the arguments to another file: the call, which
// stepped aside and holds no lock, must queue for the new file and wait
// for its writer.
func TestReviewS14ModifiedToAnotherFileWaitsForItsWriter(t *testing.T) {
	person := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Modified("alice", json.RawMessage(`{"path":"other"}`)), nil
	})
	ex, files := s14Executor(t, person)
	events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued, tool.EventCompleted, tool.EventFailed}})
	defer stop()

	hold := make(chan struct{})
	held := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.WithValue(context.Background(), s14HoldKey{}, hold), s14Call("b", "write", "other"))
		held <- res
	}()
	<-hold // b writes other
	done := make(chan *tool.Result, 1)
	go func() {
		res, _ := ex.Execute(context.Background(), s14Call("a", "write_approved", "notes"))
		done <- res
	}()
	for ev := range events { // a queues behind b, or (wrongly) runs
		if ev.CallID == "a" {
			break
		}
	}
	hold <- struct{}{}
	require.Nil(t, (<-held).Error)
	res := <-done
	require.Nil(t, res.Error, "%v", res.Error)
	assert.Equal(t, "written other", res.Text())
	assert.Zero(t, files.overlapped(), "the modified call wrote other while b did")
}

// A call that ends while it waits aside for a person (a job's Cancel, the
// caller's cancellation) keeps no place in the lock queues.
func TestReviewS14CallEndedWhileAsideKeepsNoLock(t *testing.T) {
	asked := make(chan struct{}, 2)
	person := approval.ApproverFunc(func(ctx context.Context, _ approval.Request) (approval.Decision, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return approval.Decision{}, ctx.Err()
	})
	ex, _ := s14Executor(t, person, executor.WithConflictPolicy(executor.Refuse))

	id, err := ex.Submit(context.Background(), s14Call("job", "write_approved", "notes"))
	require.NoError(t, err)
	<-asked
	require.NoError(t, ex.Cancel(id))
	res, _ := ex.Wait(context.Background(), id)
	require.NotNil(t, res.Error)
	s14Free(t, ex, "notes")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		cancel()
	}()
	res, _ = ex.Execute(ctx, s14Call("call", "write_approved", "notes"))
	require.NotNil(t, res.Error)
	s14Free(t, ex, "notes")
}

type s14Queue struct{ asides int }

func (q *s14Queue) StepAside(wait func()) {
	q.asides++
	wait()
}

func (q *s14Queue) Behind() bool { return false }

// Only a call that waits for a person steps aside: one the policy lets
// run, or whose approval is remembered for the session, keeps its place.
func TestReviewS14OnlyAPersonsWaitStepsAside(t *testing.T) {
	asked := 0
	person := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked++
		return approval.Approved("alice").WithScope(approval.ScopeSessionTool), nil
	})
	f := &s14Files{inside: map[string]int{}}
	// An ask rule, not tool.WithApproval: a tool that requires approval is
	// asked about on every call, and its approval is never remembered.
	w := f.writer("write_approved")
	spec := w.Spec()
	ax := approvalgate.New(person, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll, approval.AskRules("write_approved"))))
	chain := extension.Chain(func(context.Context, *extension.Request) *tool.Result { return &tool.Result{} }, ax, ax.Guard())
	q := &s14Queue{}
	for i := range 2 {
		req := &extension.Request{Call: tool.Call{ID: "c", Name: "write_approved", Session: "s", Args: json.RawMessage(`{"path":"notes"}`)},
			Spec: &spec, Tool: w, Queue: q}
		res := chain(context.Background(), req)
		require.Nil(t, res.Error, "%v", res.Error)
		assert.Equal(t, 1, asked, "call %d", i)
		assert.Equal(t, 1, q.asides, "call %d: stepped aside with nobody to wait for", i)
	}
	plain := f.writer("write")
	plainSpec := plain.Spec()
	res := chain(context.Background(), &extension.Request{Call: tool.Call{ID: "p", Name: "write", Args: json.RawMessage(`{"path":"notes"}`)},
		Spec: &plainSpec, Tool: plain, Queue: q})
	require.Nil(t, res.Error, "%v", res.Error)
	assert.Equal(t, 1, q.asides, "a call the policy lets run stepped aside")
}

// A tool that runs another call through the executor with its context
// (a sub-agent): the inner call waits aside for a person while the outer
// one holds its own file; both end holding nothing.
func TestReviewS14NestedCallAsideKeepsNoLock(t *testing.T) {
	person := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		return approval.Approved("alice"), nil
	})
	f := &s14Files{inside: map[string]int{}}
	reg := registry.New()
	var ex *executor.Executor
	reg.MustRegister(f.writer("write_approved", tool.WithApproval()), f.writer("write"),
		tool.Func("outer", "Write a file through another call", func(ctx context.Context, in s14Path) (string, error) {
			res, err := ex.Execute(ctx, s14Call("inner", "write_approved", "inner"))
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		}, tool.WithResources(func(json.RawMessage) []tool.Resource {
			return []tool.Resource{{Key: "file:outer", Access: tool.Write}}
		})))
	ax := approvalgate.New(person, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))
	ex = executor.MustNew(reg, executor.WithExtensions(ax, ax.Guard()), executor.WithConflictPolicy(executor.Refuse))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ex.Execute(ctx, s14Call("o", "outer", "outer"))
	require.NoError(t, err, "%v", res.Error)
	assert.Equal(t, "written inner", res.Text())
	s14Free(t, ex, "outer")
	s14Free(t, ex, "inner")
}
