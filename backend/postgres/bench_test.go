package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkRateLimitTake is one call's take of two buckets (principal and
// tool+principal), in memory and through PostgreSQL, in one run.
func BenchmarkRateLimitTake(b *testing.B) {
	dsn := database(b)
	pg := postgres.New(newPool(b, dsn))
	defer pg.Close()
	for _, bc := range []struct {
		name  string
		store ratelimit.Store
	}{{"memory", ratelimit.NewMemoryStore(0)}, {"postgres", pg.RateLimits}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			buckets := []ratelimit.Bucket{
				{Key: "principal/5:alice", Rate: ratelimit.Per(1_000_000_000, time.Second)},
				{Key: "tool+principal/4:send5:alice", Rate: ratelimit.Per(1_000_000_000, time.Second)},
			}
			b.ReportAllocs()
			for b.Loop() {
				g, err := bc.store.Take(ctx, buckets)
				if err != nil || !g.OK {
					b.Fatal(err, g)
				}
			}
		})
	}
}

// BenchmarkApprovalRoundTrip is one approval: put, listed and decided by
// another party, and the waiter woken; in memory and through PostgreSQL.
func BenchmarkApprovalRoundTrip(b *testing.B) {
	dsn := database(b)
	pg := postgres.New(newPool(b, dsn))
	defer pg.Close()
	other := postgres.New(newPool(b, dsn))
	defer other.Close()
	mem := approval.NewMemoryStore()
	for _, bc := range []struct {
		name          string
		waiter, judge approval.Store
	}{{"memory", mem, mem}, {"postgres", pg.Approvals, other.Approvals}} {
		b.Run(bc.name, func(b *testing.B) {
			q := approval.NewQueue(approval.QueueStore(bc.waiter))
			judge := approval.NewQueue(approval.QueueStore(bc.judge), approval.QueuePoll(time.Millisecond))
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				done := make(chan error, 1)
				go func() {
					_, err := q.Approve(ctx, approval.Request{Call: tool.Call{ID: fmt.Sprint(i), Name: "deploy", Args: json.RawMessage(`{}`)}})
					done <- err
				}()
				p, err := judge.Next(ctx)
				require.NoError(b, err)
				require.NoError(b, judge.Resolve(p.ID, approval.Approved("bench")))
				require.NoError(b, <-done)
			}
		})
	}
}

// BenchmarkJobsSubmitToComplete submits a no-op tool call as a durable job
// through an executor's Submit and waits until a worker instance (another
// pool) has completed it: one job per iteration, so jobs/s = 1e9 / ns/op.
func BenchmarkJobsSubmitToComplete(b *testing.B) {
	dsn := database(b)
	ctx := context.Background()
	submitter := newJobInstance(b, dsn, postgres.JobsConfig{Workers: postgres.NoWorkers})
	newJobInstance(b, dsn, postgres.JobsConfig{Workers: 4})
	b.ReportAllocs()
	for b.Loop() {
		id, err := submitter.ex.Submit(ctx, tool.Call{Name: "report"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := submitter.ex.Wait(ctx, id); err != nil {
			b.Fatalf("job %s: %v", id, err)
		}
	}
}

// BenchmarkExecuteWithHistory is a no-op call whose history record goes to
// the in-memory ring or to PostgreSQL (the call's result waits for the
// INSERT): the cost WithHistoryStore adds to every call.
func BenchmarkExecuteWithHistory(b *testing.B) {
	dsn := database(b)
	pg := postgres.New(newPool(b, dsn))
	defer pg.Close()
	for _, bc := range []struct {
		name string
		opt  executor.Option
	}{{"memory", nil}, {"postgres", executor.WithHistoryStore(pg.History)}} {
		b.Run(bc.name, func(b *testing.B) {
			reg := registry.New()
			reg.MustRegister(tool.Func("noop", "Does nothing", func(context.Context, struct{}) (string, error) { return "", nil }))
			ex := executor.MustNew(reg, bc.opt)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, tool.Call{ID: "c", Name: "noop"}); err != nil {
					b.Fatal(err)
				}
			}
			if n, err := pg.History.Dropped(); n > 0 {
				b.Fatal(n, err)
			}
		})
	}
}
