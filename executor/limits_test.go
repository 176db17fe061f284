package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// TestLimitsBoundOverlap: under each limit, many calls at once never
// overlap more than the limit, and do reach it.
func TestLimitsBoundOverlap(t *testing.T) {
	tests := []struct {
		name   string
		opts   []executor.Option
		agents []string
		tools  []string
		// the most that may (and should) run at once, per probe key
		want map[string]int32
	}{
		{"global", []executor.Option{executor.WithMaxConcurrency(2)}, []string{"a", "b"}, []string{"x", "y"}, map[string]int32{"all": 2}},
		{"per agent", []executor.Option{executor.WithAgentConcurrency(2)}, []string{"a", "b"}, []string{"x"}, map[string]int32{"agent a": 2, "agent b": 2, "all": 4}},
		{"per tool", []executor.Option{executor.WithToolConcurrency(1)}, []string{"a"}, []string{"x", "y"}, map[string]int32{"tool x": 1, "tool y": 1, "all": 2}},
		{"one tool only", []executor.Option{executor.WithToolConcurrency(1, "x")}, []string{"a"}, []string{"x", "y"}, map[string]int32{"tool x": 1, "all": 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			probes := map[string]*scProbe{}
			probe := func(k string) *scProbe {
				mu.Lock()
				defer mu.Unlock()
				if probes[k] == nil {
					probes[k] = &scProbe{}
				}
				return probes[k]
			}
			mk := func(name string) tool.Tool {
				return tool.New(name, "A test tool", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
					ps := []*scProbe{probe("all"), probe("agent " + c.Agent), probe("tool " + c.Name)}
					for _, p := range ps {
						p.enter()
					}
					time.Sleep(3 * time.Millisecond)
					for _, p := range ps {
						p.leave()
					}
					return &tool.Result{}, nil
				})
			}
			var tools []tool.Tool
			for _, n := range tt.tools {
				tools = append(tools, mk(n))
			}
			ex := executor.MustNew(scRegistry(t, tools...), append(tt.opts, executor.WithBatchConcurrency(64))...)
			var calls []tool.Call
			for i := 0; i < 8; i++ {
				for _, a := range tt.agents {
					for _, n := range tt.tools {
						calls = append(calls, tool.Call{ID: fmt.Sprint(len(calls)), Name: n, Agent: a})
					}
				}
			}
			for _, r := range ex.ExecuteBatch(context.Background(), calls) {
				require.True(t, r.OK(), "%v", r.Err())
			}
			for k, w := range tt.want {
				got := probe(k).max.Load()
				if k == "all" && tt.name == "one tool only" {
					assert.Greater(t, got, int32(1), "tool y is not limited")
					continue
				}
				assert.LessOrEqual(t, got, w, k)
				if k != "all" || tt.name == "global" {
					assert.Equal(t, w, got, "%s reaches its limit", k)
				}
			}
			_, busy := executor.AgentLimiters(ex)
			assert.Zero(t, busy, "every agent slot given back")
		})
	}
}

func TestLimitRefuseAndQueueBound(t *testing.T) {
	tests := []struct {
		name    string
		opts    []executor.Option
		waiters int // calls that queue behind the holder and then run
	}{
		{"refuse", []executor.Option{executor.WithLimitPolicy(executor.Refuse)}, 0},
		{"queue bound", []executor.Option{executor.WithMaxQueue(2)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// In a synctest bubble time passes only while every goroutine
			// waits: a refusal "at once" takes no time at all.
			synctest.Test(t, func(t *testing.T) {
				probe, release := &scProbe{}, make(chan struct{})
				ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)),
					append(tt.opts, executor.WithAgentConcurrency(1))...)
				held := scHold(t, ex, probe, "holder", "")
				queued, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
				defer stop()
				var wg sync.WaitGroup
				waited := make(chan *tool.Result, tt.waiters)
				for i := 0; i < tt.waiters; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r, _ := ex.Execute(context.Background(), scCall(fmt.Sprint("w", i), "gate", scPathArgs{}))
						waited <- r
					}()
				}
				n := 0
				if tt.waiters > 0 {
					scCollect(queued, func(tool.Event) bool { n++; return n == tt.waiters }, 5*time.Second)
				}
				require.Equal(t, tt.waiters, n, "waiters queued")
				start := time.Now()
				res, _ := ex.Execute(context.Background(), scCall("over", "gate", scPathArgs{}))
				assert.Zero(t, time.Since(start), "refused at once")
				assert.True(t, errors.Is(res.Err(), tool.ErrConcurrencyLimit), "%v", res.Err())
				assert.True(t, res.Error.Retryable)
				assert.Contains(t, res.Error.Message, `agent ""`)
				close(release)
				wg.Wait()
				close(waited)
				for r := range waited {
					assert.True(t, r.OK(), "queued calls within the bound ran: %v", r.Err())
				}
				assert.True(t, (<-held).OK())
			})
		})
	}
}

func TestLimitWaitGivesUpAtDeadline(t *testing.T) {
	probe, release := &scProbe{}, make(chan struct{})
	ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)), executor.WithMaxConcurrency(1))
	held := scHold(t, ex, probe, "holder", "")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	res, err := ex.Execute(ctx, scCall("late", "gate", scPathArgs{}))
	assert.True(t, errors.Is(err, tool.ErrConcurrencyLimit), "%v", err)
	assert.Contains(t, res.Error.Message, "the executor")
	close(release)
	<-held
}

// TestLimitWaitersServedInOrder: calls queued for one slot run in the order
// they queued.
func TestLimitWaitersServedInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var order []string
		gate := make(chan struct{})
		first := true
		rec := tool.New("rec", "The rec test tool", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
			mu.Lock()
			order = append(order, c.ID)
			wait := first
			first = false
			mu.Unlock()
			if wait {
				<-gate
			}
			return &tool.Result{}, nil
		})
		ex := executor.MustNew(scRegistry(t, rec), executor.WithToolConcurrency(1))
		events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued, tool.EventStarted}})
		defer stop()
		done := make(chan struct{})
		go func() { ex.Execute(context.Background(), tool.Call{ID: "0", Name: "rec"}); close(done) }()
		scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventStarted }, 5*time.Second)
		var wg sync.WaitGroup
		for i := 1; i <= 5; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); ex.Execute(context.Background(), tool.Call{ID: fmt.Sprint(i), Name: "rec"}) }()
			// the next call is sent once this one is queued
			ev := scCollect(events, func(ev tool.Event) bool { return ev.Kind == tool.EventQueued }, 5*time.Second)
			require.NotEmpty(t, ev)
			require.Equal(t, fmt.Sprint(i), ev[len(ev)-1].CallID)
			assert.Contains(t, ev[len(ev)-1].Reason, "limit: tool \"rec\"")
			// The queued event is sent just before the call enters the FIFO
			// semaphore; synctest.Wait returns once it is blocked there.
			synctest.Wait()
		}
		close(gate)
		wg.Wait()
		<-done
		assert.Equal(t, []string{"0", "1", "2", "3", "4", "5"}, order)
	})
}

// TestIdleAgentLimitersDropped: agents come and go; the limiter of an
// agent with no call running or waiting is not kept.
func TestIdleAgentLimitersDropped(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()), executor.WithAgentConcurrency(1))
	n := 1000
	for i := 0; i < n; i++ {
		_, err := ex.Execute(context.Background(), tool.Call{Name: "noop", Agent: fmt.Sprint("agent-", i)})
		require.NoError(t, err)
	}
	alive, busy := executor.AgentLimiters(ex)
	assert.Zero(t, busy)
	assert.Zero(t, alive, "idle agents' limiters are dropped")
}

// TestMaxWaitBoundsTheWholeQueue: WithMaxWait bounds how long a call
// queues in all, not each queue it enters. x2 waits 8s for tool x's one
// slot, then for one of the executor's two (z1 queued for it first): it
// gives up at 10s, not 8s + 10s.
func TestMaxWaitBoundsTheWholeQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		blocking := func(name string) tool.Tool {
			return tool.New(name, "A test tool", func(ctx context.Context, c tool.Call) (*tool.Result, error) {
				if c.ID == "x1" {
					time.Sleep(8 * time.Second)
				} else {
					<-hold
				}
				return &tool.Result{}, nil
			})
		}
		ex := executor.MustNew(scRegistry(t, blocking("x"), blocking("y"), blocking("z")),
			executor.WithToolConcurrency(1, "x"), executor.WithMaxConcurrency(2), executor.WithMaxWait(10*time.Second))
		var wg sync.WaitGroup
		for _, c := range []tool.Call{{ID: "x1", Name: "x"}, {ID: "y1", Name: "y"}, {ID: "z1", Name: "z"}} {
			wg.Go(func() { _, _ = ex.Execute(context.Background(), c) })
			synctest.Wait() // running (x1, y1) or queued (z1)
		}
		start := time.Now()
		res, err := ex.Execute(context.Background(), tool.Call{ID: "x2", Name: "x"})
		waited := time.Since(start)
		close(hold)
		wg.Wait()
		require.ErrorIs(t, err, tool.ErrConcurrencyLimit, "x2 gave up waiting")
		assert.Equal(t, tool.CodeConcurrencyLimit, res.Error.Code)
		assert.Greater(t, waited, 8*time.Second, "x2 queued for the executor's slot after tool x's")
		assert.LessOrEqual(t, waited, 10*time.Second, "WithMaxWait bounds the call's whole wait")
		assert.Contains(t, res.Error.Message, "waited 10s")
	})
}
