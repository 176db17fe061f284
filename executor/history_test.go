package executor_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestHistoryStaysAtItsBound(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
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
	fail := tool.Func("fail", "The fail test tool", func(context.Context, scEmpty) (string, error) {
		return "", tool.NewError(tool.CodeNonZeroExit, "exit 3")
	})
	ex := executor.MustNew(scRegistry(t, scNoop(), fail), executor.WithHistory(10))
	ctx := context.Background()
	ex.Execute(ctx, tool.Call{ID: "old", Name: "noop", Agent: "ann"})
	// Not a wait for another goroutine (Execute has returned): the clock
	// moves on, so that mid falls strictly between "old" and the rest.
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

	off := executor.MustNew(scRegistry(t, scNoop()), executor.WithHistory(0))
	off.Execute(ctx, tool.Call{Name: "noop"})
	assert.Nil(t, off.History(executor.HistoryQuery{}))
}

// Calls finishing at once on many goroutines each get their own sequence
// number and slot: the ring ends holding exactly the newest records,
// numbered without a gap, while readers query it throughout.
func TestHistoryConcurrentCalls(t *testing.T) {
	const size, writers, each = 64, 8, 500
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithHistory(size))
	ctx := context.Background()
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				h := ex.History(executor.HistoryQuery{})
				if len(h) > size {
					t.Errorf("History returned %d records, over the bound %d", len(h), size)
					return
				}
				for i := 1; i < len(h); i++ {
					if h[i].Seq <= h[i-1].Seq {
						t.Errorf("records out of order: seq %d after %d", h[i].Seq, h[i-1].Seq)
						return
					}
				}
			}
		})
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := ex.Execute(ctx, tool.Call{ID: fmt.Sprintf("w%d-%d", w, i), Name: "noop"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	h := ex.History(executor.HistoryQuery{})
	require.Len(t, h, size)
	seen := map[string]bool{}
	for i, r := range h {
		assert.Equal(t, uint64(writers*each-size+1+i), r.Seq, "record %d", i)
		assert.False(t, seen[r.CallID], "call %s recorded twice", r.CallID)
		seen[r.CallID] = true
	}
	newest := ex.History(executor.HistoryQuery{Limit: 3})
	require.Len(t, newest, 3)
	assert.Equal(t, h[size-3:], newest, "Limit keeps the newest, oldest first")
}

// An extension that rewrites the request's identity fields does not change
// what the result and the history say about the call: they echo the call
// as the executor received it.
func TestResultAndHistoryEchoTheReceivedCall(t *testing.T) {
	rename := extension.Func("rename", extension.PriorityApproval, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.ID, req.Call.Agent, req.Call.Session = "forged", "mallory", "other"
			return next(ctx, req)
		}
	})
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithExtensions(rename))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "noop", Agent: "ann", Session: "s1"})
	require.NoError(t, err)
	assert.Equal(t, "c1", res.CallID)
	h := ex.History(executor.HistoryQuery{})
	require.Len(t, h, 1)
	assert.Equal(t, []string{"c1", "noop", "ann", "s1"}, []string{h[0].CallID, h[0].Tool, h[0].Agent, h[0].Session})
}

// listStore is a HistoryStore that keeps every record in a slice.
type listStore struct {
	mu   sync.Mutex
	recs []executor.Record
}

func (s *listStore) Add(_ context.Context, r executor.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = uint64(len(s.recs) + 1)
	s.recs = append(s.recs, r)
}

func (s *listStore) Query(_ context.Context, q executor.HistoryQuery) ([]executor.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []executor.Record
	for i := range s.recs {
		if q.Match(&s.recs[i]) {
			out = append(out, s.recs[i])
		}
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[len(out)-q.Limit:]
	}
	return out, nil
}

// A history store keeps what History returns: here a slice that keeps
// every call (the in-memory default keeps the last WithHistory).
// backend/postgres has one that every instance of a fleet shares.
func ExampleWithHistoryStore() {
	reg := registry.New()
	reg.MustRegister(tool.Func("greet", "Greet someone", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello " + in.Name, nil
	}))
	store := &listStore{}
	ex := executor.MustNew(reg, executor.WithHistoryStore(store), executor.WithHistory(0))
	ctx := context.Background()
	ex.Execute(ctx, tool.Call{ID: "c1", Name: "greet", Agent: "ann", Args: []byte(`{"name":"Bo"}`)})
	ex.Execute(ctx, tool.Call{ID: "c2", Name: "greet", Agent: "bob", Args: []byte(`{"name":"Al"}`)})
	ex.Execute(ctx, tool.Call{ID: "c3", Name: "greet", Agent: "bob", Args: []byte(`{}`)})
	for _, r := range ex.History(executor.HistoryQuery{Agent: "bob"}) {
		fmt.Println(r.Seq, r.CallID, r.Agent, r.Status)
	}
	// Output:
	// 2 c2 bob succeeded
	// 3 c3 bob failed
}

// HistoryContext gives up when its context is done; a typed nil store is
// refused by New.
func TestHistoryContextAndNilStore(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "a", Name: "noop"})
	require.NoError(t, err)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ex.HistoryContext(done, executor.HistoryQuery{})
	assert.ErrorIs(t, err, context.Canceled)
	recs, err := ex.HistoryContext(context.Background(), executor.HistoryQuery{})
	require.NoError(t, err)
	require.Len(t, recs, 1)

	off := executor.MustNew(scRegistry(t, scNoop()), executor.WithHistory(0))
	recs, err = off.HistoryContext(context.Background(), executor.HistoryQuery{})
	assert.NoError(t, err)
	assert.Nil(t, recs, "history disabled")

	var nilStore *listStore
	_, err = executor.New(scRegistry(t, scNoop()), executor.WithHistoryStore(nilStore))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WithHistoryStore is a nil pointer")
}
