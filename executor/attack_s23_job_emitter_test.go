package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A job submitted from inside a call (a tool that starts background work)
// kept the context's emitter, the call's: the job's output went out as
// that call's output, after the call had completed, to its subscribers
// (and to an emitter its caller installed, an MCP request's progress,
// after the request had ended). A job is a call of its own and outlives
// its submitter: its events are its own.
func TestAttackS23JobSubmittedFromACallHasItsOwnEvents(t *testing.T) {
	release := make(chan struct{})
	var ex *executor.Executor
	var job executor.JobID
	worker := tool.New("worker", "The worker test tool", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		<-release
		tool.EmitOutput(ctx, "stdout", []byte("background output"))
		return &tool.Result{}, nil
	})
	starter := tool.New("starter", "The starter test tool", func(ctx context.Context, _ tool.Call) (*tool.Result, error) {
		var err error
		job, err = ex.Submit(ctx, tool.Call{ID: "bg", Name: "worker", Args: json.RawMessage(`{}`)})
		return &tool.Result{}, err
	})
	ex = newExec(t, nil, worker, starter)
	events, stop := ex.Subscribe(executor.EventFilter{})
	_, err := ex.Execute(context.Background(), tool.Call{ID: "start", Name: "starter", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	close(release)
	_, err = ex.Wait(context.Background(), job)
	require.NoError(t, err)
	stop() // every event of both is in the buffer
	var got []string
	for ev := range events {
		if ev.Kind == tool.EventOutput {
			got = append(got, ev.CallID)
		}
	}
	assert.Equal(t, []string{"bg"}, got, "the job's output is its own, not the finished starter call's")
}
