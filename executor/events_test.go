package executor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestEventsOfOneCall(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scProcTool("sh", nil)))
	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	call := tool.Call{ID: "c1", Name: "sh", Agent: "ann", Args: []byte(`{"script":"echo one; echo two"}`)}
	res, err := ex.Execute(context.Background(), call)
	require.NoError(t, err)
	evs := scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventCompleted }, 5*time.Second)
	var kinds []tool.EventKind
	var out string
	var last uint64
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
		assert.Equal(t, "c1", ev.CallID)
		assert.Equal(t, "sh", ev.Tool)
		assert.Equal(t, "ann", ev.Agent)
		assert.Empty(t, ev.JobID)
		assert.False(t, ev.Time.IsZero())
		assert.Greater(t, ev.Seq, last, "sequence numbers increase")
		last = ev.Seq
		if ev.Kind == tool.EventOutput {
			assert.Equal(t, "stdout", ev.Stream)
			out += string(ev.Data)
		}
	}
	assert.Equal(t, []tool.EventKind{tool.EventSubmitted, tool.EventStarted, tool.EventOutput, tool.EventOutput, tool.EventCompleted}, kinds)
	assert.Equal(t, "one\ntwo\n", out)
	assert.Same(t, res, evs[len(evs)-1].Result)
	assert.Equal(t, 1, evs[1].Attempt)
}

func TestEventsFinalKindAndFilter(t *testing.T) {
	fail := tool.Func("fail", "The fail test tool", func(context.Context, scEmpty) (string, error) {
		return "", tool.NewError(tool.CodeNonZeroExit, "exit 2")
	})
	ex := executor.MustNew(scRegistry(t, scNoop(), fail))
	all, stopAll := ex.Subscribe(executor.EventFilter{})
	defer stopAll()
	finals, stopFinals := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventCompleted, tool.EventFailed, tool.EventCancelled}, Agents: []string{"bob"}})
	defer stopFinals()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ex.Execute(context.Background(), tool.Call{ID: "a", Name: "noop", Agent: "ann"})
	ex.Execute(context.Background(), tool.Call{ID: "b", Name: "fail", Agent: "bob"})
	ex.Execute(ctx, tool.Call{ID: "c", Name: "noop", Agent: "bob"})
	ex.Execute(context.Background(), tool.Call{ID: "d", Name: "noop", Agent: "bob"})
	got := scCollect(finals, func(ev tool.Event) bool { return ev.CallID == "d" }, 5*time.Second)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"b", "c", "d"}, []string{got[0].CallID, got[1].CallID, got[2].CallID})
	assert.Equal(t, []tool.EventKind{tool.EventFailed, tool.EventCancelled, tool.EventCompleted}, []tool.EventKind{got[0].Kind, got[1].Kind, got[2].Kind})
	assert.Contains(t, got[0].Reason, "exit 2")
	assert.Len(t, scCollect(all, func(ev tool.Event) bool { return ev.CallID == "d" && ev.Kind == tool.EventCompleted }, 5*time.Second), 11,
		"a, b, d: submitted, started, final; c: submitted, cancelled")

	stopFinals()
	stopFinals() // twice is fine
	_, open := <-finals
	assert.False(t, open, "the channel is closed")
}

// TestSlowSubscriberNeverBlocks: a subscriber that never reads does not
// hold calls up; when it reads again, the first event after its buffer
// tells it how many it lost, and lost + received = sent.
func TestSlowSubscriberNeverBlocks(t *testing.T) {
	const buffer, calls = 8, 500
	ex := executor.MustNew(scRegistry(t, scNoop()))
	slow, stop := ex.Subscribe(executor.EventFilter{Buffer: buffer})
	defer stop()
	for i := 0; i < calls; i++ {
		_, err := ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint(i), Name: "noop"})
		require.NoError(t, err)
	}
	// Every call finished with the subscriber asleep. Now it reads.
	var received []tool.Event
	for len(received) < buffer {
		received = append(received, <-slow)
	}
	ex.Execute(context.Background(), tool.Call{ID: "after", Name: "noop"})
	next := <-slow
	received = append(received, next)
	const perCall = 3 // submitted, started, completed
	emitted := uint64(calls*perCall + 1)
	assert.Equal(t, "after", next.CallID)
	assert.Equal(t, tool.EventSubmitted, next.Kind)
	assert.Positive(t, next.Dropped)
	assert.Equal(t, emitted, next.Dropped+uint64(len(received)), "dropped + received = emitted")
	for _, ev := range received[:buffer] {
		assert.Zero(t, ev.Dropped, "the buffered events lost nothing before them")
	}
	more := scCollect(slow, func(ev tool.Event) bool { return ev.Kind == tool.EventCompleted }, 5*time.Second)
	require.Len(t, more, 2)
	assert.Zero(t, more[0].Dropped, "the count resets once reported")
}

// A call run from inside another call's backend (a sub-agent) is a call
// of its own: its lifecycle events carry its own id, and the outer call's
// subscribers see the outer call start and end once. The inner call's
// output also shows as the outer call's output (the sub-agent's output is
// part of what the outer tool produces), as output emitted by the outer
// backend itself does.
func TestNestedCallEventsKeepTheirOwnIdentity(t *testing.T) {
	var ex *executor.Executor
	inner := tool.New("inner", "The inner test tool", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		tool.EmitOutput(ctx, "stdout", []byte("from inner"))
		return &tool.Result{}, nil
	})
	outer := tool.New("outer", "The outer test tool", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		if _, err := ex.Execute(ctx, tool.Call{ID: "in", Name: "inner"}); err != nil {
			return nil, err
		}
		return &tool.Result{}, nil
	})
	ex = executor.MustNew(scRegistry(t, outer, inner))
	ch, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	_, err := ex.Execute(context.Background(), tool.Call{ID: "out", Name: "outer"})
	require.NoError(t, err)
	evs := scCollect(ch, func(ev tool.Event) bool { return ev.CallID == "out" && ev.Kind == tool.EventCompleted }, 5*time.Second)
	kinds := map[string][]tool.EventKind{}
	var outputs []string
	for _, ev := range evs {
		if ev.Kind == tool.EventOutput {
			outputs = append(outputs, ev.CallID+":"+string(ev.Data))
			continue
		}
		kinds[ev.CallID] = append(kinds[ev.CallID], ev.Kind)
	}
	want := []tool.EventKind{tool.EventSubmitted, tool.EventStarted, tool.EventCompleted}
	assert.Equal(t, want, kinds["out"], "the outer call starts and ends once")
	assert.Equal(t, want, kinds["in"], "the inner call has its own events")
	assert.ElementsMatch(t, []string{"in:from inner", "out:from inner"}, outputs,
		"the inner call's output is its own, and part of the outer call's")
}
