package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// historyExecutor is an instance whose history is the shared one.
func historyExecutor(t *testing.T, dsn string) (*executor.Executor, *postgres.HistoryStore) {
	t.Helper()
	stores := postgres.New(newPool(t, dsn))
	t.Cleanup(stores.Close)
	reg := registry.New()
	reg.MustRegister(
		tool.Func("ok", "Succeeds", func(context.Context, struct{}) (string, error) { return "fine", nil }),
		tool.Func("fail", "Fails", func(context.Context, struct{}) (string, error) {
			return "", tool.NewError(tool.CodeNonZeroExit, "exit 3")
		}),
	)
	ex, err := executor.New(reg, executor.WithHistoryStore(stores.History))
	require.NoError(t, err)
	return ex, stores.History
}

func callIDs(rs []executor.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.CallID)
	}
	return out
}

// History written by two executors on one database is seen, in full and
// in the same order, from either; queries filter in the database.
func TestHistorySharedAcrossInstances(t *testing.T) {
	dsn := database(t)
	a, storeA := historyExecutor(t, dsn)
	b, storeB := historyExecutor(t, dsn)
	ctx := context.Background()
	_, err := a.Execute(ctx, tool.Call{ID: "a1", Name: "ok", Agent: "ann", Session: "s1"})
	require.NoError(t, err)
	// Not a wait for another goroutine (Execute has returned): the clock
	// moves on, so that mid falls strictly between a1 and the rest (the
	// database keeps microseconds). A real database: no synctest here.
	time.Sleep(5 * time.Millisecond)
	mid := time.Now()
	_, err = b.Execute(ctx, tool.Call{ID: "b1", Name: "fail", Agent: "bob"})
	require.Error(t, err)
	_, err = a.Execute(ctx, tool.Call{ID: "a2", Name: "fail", Agent: "ann"})
	require.Error(t, err)
	_, err = b.Execute(ctx, tool.Call{ID: "b2\x00", Name: "ok", Agent: "bob\xff"})
	require.NoError(t, err)

	fromA, fromB := a.History(executor.HistoryQuery{}), b.History(executor.HistoryQuery{})
	require.Len(t, fromA, 4)
	assert.Equal(t, fromA, fromB, "either instance sees the same history")
	assert.Equal(t, []string{"a1", "b1", "a2", "b2\uFFFD"}, callIDs(fromA), "in the order the calls finished; NUL stored as U+FFFD")
	for i := 1; i < len(fromA); i++ {
		assert.Greater(t, fromA[i].Seq, fromA[i-1].Seq)
	}
	first := fromA[0]
	assert.Equal(t, "ok", first.Tool)
	assert.Equal(t, "ann", first.Agent)
	assert.Equal(t, "s1", first.Session)
	assert.Equal(t, tool.StatusSucceeded, first.Status)
	assert.Equal(t, 1, first.Attempts)
	assert.Positive(t, first.Duration)
	assert.False(t, first.StartedAt.IsZero())
	failed := fromA[1]
	assert.Equal(t, tool.StatusFailed, failed.Status)
	assert.Equal(t, tool.CodeNonZeroExit, failed.Code)
	assert.Equal(t, "exit 3", failed.Message)

	tests := []struct {
		name string
		q    executor.HistoryQuery
		want []string
	}{
		{"by agent", executor.HistoryQuery{Agent: "ann"}, []string{"a1", "a2"}},
		{"by tool", executor.HistoryQuery{Tool: "fail"}, []string{"b1", "a2"}},
		{"by status", executor.HistoryQuery{Status: tool.StatusSucceeded}, []string{"a1", "b2\uFFFD"}},
		{"since", executor.HistoryQuery{Since: mid}, []string{"b1", "a2", "b2\uFFFD"}},
		{"until", executor.HistoryQuery{Until: mid}, []string{"a1"}},
		{"newest two", executor.HistoryQuery{Limit: 2}, []string{"a2", "b2\uFFFD"}},
		{"agent and limit", executor.HistoryQuery{Agent: "ann", Limit: 1}, []string{"a2"}},
		{"nothing", executor.HistoryQuery{Agent: "nobody"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := b.HistoryContext(ctx, tc.q)
			require.NoError(t, err)
			assert.Equal(t, tc.want, callIDs(recs))
		})
	}
	for _, s := range []*postgres.HistoryStore{storeA, storeB} {
		n, last := s.Dropped()
		assert.Zero(t, n)
		assert.NoError(t, last)
	}

	pruned, err := storeA.Prune(ctx, mid)
	require.NoError(t, err)
	assert.EqualValues(t, 1, pruned)
	assert.Equal(t, []string{"b1", "a2", "b2\uFFFD"}, callIDs(b.History(executor.HistoryQuery{})))
}

// A record the database does not take is dropped, counted and explained;
// the call's result is unaffected.
func TestHistoryDropsWhatItCannotWrite(t *testing.T) {
	dsn := database(t)
	ex, store := historyExecutor(t, dsn)
	pool := newPool(t, dsn)
	_, err := pool.Exec(context.Background(), `DROP TABLE toolbelt_history`)
	require.NoError(t, err)
	for i := range 2 {
		res, err := ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint("c", i), Name: "ok"})
		require.NoError(t, err)
		assert.True(t, res.OK())
	}
	n, last := store.Dropped()
	assert.EqualValues(t, 2, n)
	require.Error(t, last)
	assert.Contains(t, last.Error(), `record of call "c1"`)
	assert.Contains(t, last.Error(), "toolbelt_history")
	_, err = ex.HistoryContext(context.Background(), executor.HistoryQuery{})
	assert.Error(t, err, "the query says why")
	assert.Nil(t, ex.History(executor.HistoryQuery{}))
}
