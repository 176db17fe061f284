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

func TestHistoryStaysAtItsBound(t *testing.T) {
	ex := executor.New(scRegistry(t, scNoop()))
	ctx := context.Background()
	call := tool.Call{Name: "noop", Agent: "ann"}
	for i := 0; i < 100_000; i++ {
		call.ID = fmt.Sprint(i)
		if _, err := ex.Execute(ctx, call); err != nil {
			t.Fatal(err)
		}
	}
	h := ex.History(executor.HistoryQuery{})
	require.Len(t, h, executor.DefaultHistory)
	assert.Equal(t, "99000", h[0].CallID, "the oldest kept is the 1,000th from the end")
	assert.Equal(t, "99999", h[len(h)-1].CallID)
	assert.Equal(t, uint64(100_000), h[len(h)-1].Seq)
}

func TestHistoryQuery(t *testing.T) {
	fail := tool.Func("fail", "", func(context.Context, scEmpty) (string, error) {
		return "", tool.NewError(tool.CodeNonZeroExit, "exit 3")
	})
	ex := executor.New(scRegistry(t, scNoop(), fail), executor.WithHistory(10))
	ctx := context.Background()
	ex.Execute(ctx, tool.Call{ID: "old", Name: "noop", Agent: "ann"})
	time.Sleep(2 * time.Millisecond)
	mid := time.Now()
	for i := 0; i < 4; i++ {
		ex.Execute(ctx, tool.Call{ID: fmt.Sprint("n", i), Name: "noop", Agent: "bob"})
		ex.Execute(ctx, tool.Call{ID: fmt.Sprint("f", i), Name: "fail", Agent: "ann"})
	}
	id, err := ex.Submit(ctx, tool.Call{ID: "job", Name: "noop", Agent: "cy"})
	require.NoError(t, err)
	_, _ = ex.Wait(ctx, id)

	ids := func(rs []executor.Record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.CallID)
		}
		return out
	}
	tests := []struct {
		name string
		q    executor.HistoryQuery
		want []string
	}{
		{"by tool", executor.HistoryQuery{Tool: "fail"}, []string{"f0", "f1", "f2", "f3"}},
		{"by agent", executor.HistoryQuery{Agent: "bob"}, []string{"n0", "n1", "n2", "n3"}},
		{"by status", executor.HistoryQuery{Status: tool.StatusFailed, Limit: 2}, []string{"f2", "f3"}},
		{"by time", executor.HistoryQuery{Until: mid}, []string{"old"}},
		{"since", executor.HistoryQuery{Since: mid, Agent: "ann", Limit: 1}, []string{"f3"}},
		{"none", executor.HistoryQuery{Tool: "nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ids(ex.History(tt.q)))
		})
	}
	all := ex.History(executor.HistoryQuery{})
	require.Len(t, all, 10)
	last := all[len(all)-1]
	assert.Equal(t, id, last.JobID)
	f := ex.History(executor.HistoryQuery{Tool: "fail", Limit: 1})[0]
	assert.Equal(t, tool.CodeNonZeroExit, f.Code)
	assert.Equal(t, "exit 3", f.Message)
	assert.False(t, f.CompletedAt().Before(f.StartedAt))

	off := executor.New(scRegistry(t, scNoop()), executor.WithHistory(0))
	off.Execute(ctx, tool.Call{Name: "noop"})
	assert.Nil(t, off.History(executor.HistoryQuery{}))
}
