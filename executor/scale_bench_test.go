package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/tool"
)

func scRawNoop(name string, opts ...tool.Option) tool.Tool {
	return tool.New(name, "Do nothing", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }, opts...)
}

// BenchmarkExecuteBatch runs one batch of 10,000 no-op calls per op with 1
// and with 2 workers, in the same run, to show how a batch scales with its
// workers (the old target, 1.6× on two cores, measured no-op calls and was
// retired with issue 17).
func BenchmarkExecuteBatch(b *testing.B) {
	const n = 10_000
	calls := make([]tool.Call, n)
	for i := range calls {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: "noop", Args: json.RawMessage(`{}`)}
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ex := executor.MustNew(scRegistry(b, scRawNoop("noop")), executor.WithBatchConcurrency(workers))
			b.ReportAllocs()
			for b.Loop() {
				res := ex.ExecuteBatch(context.Background(), calls)
				if !res[n-1].OK() {
					b.Fatal(res[n-1].Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}

// BenchmarkExecuteBatchInterleaved runs the batch of BenchmarkExecuteBatch
// with 1 and with 2 workers in alternation within one loop, so that a
// shared machine's drifting speed hits both alike, and reports the time
// with 2 workers relative to 1 (x_workers=2). Each timed block of three
// batches follows six untimed ones of the same configuration, so that the
// collector's pacing comes from that configuration (see
// benchcore.InterleaveWarm); even so it reads a little above separate runs
// of BenchmarkExecuteBatch (in separate processes, the way a program runs
// with one setting).
func BenchmarkExecuteBatchInterleaved(b *testing.B) {
	const n = 10_000
	calls := make([]tool.Call, n)
	for i := range calls {
		calls[i] = tool.Call{ID: fmt.Sprint(i), Name: "noop", Args: json.RawMessage(`{}`)}
	}
	run := func(workers int) func() {
		ex := executor.MustNew(scRegistry(b, scRawNoop("noop")), executor.WithBatchConcurrency(workers))
		return func() {
			res := ex.ExecuteBatch(context.Background(), calls)
			if !res[n-1].OK() {
				b.Fatal(res[n-1].Err())
			}
		}
	}
	benchcore.InterleaveWarm(b, 6, 3, []string{"workers=1", "workers=2"}, run(1), run(2))
}

// BenchmarkLockOverhead compares an uncontended call that declares a
// resource with the same call declaring none.
func BenchmarkLockOverhead(b *testing.B) {
	res := []tool.Resource{{Key: "file:/src/main.go", Access: tool.Write}}
	declare := tool.WithResources(func(json.RawMessage) []tool.Resource { return res })
	none := tool.WithResources(func(json.RawMessage) []tool.Resource { return nil })
	for _, tc := range []struct {
		name string
		opt  tool.Option
	}{{"no_resource", none}, {"one_resource", declare}} {
		b.Run(tc.name, func(b *testing.B) {
			ex := executor.MustNew(scRegistry(b, scRawNoop("t", tc.opt)))
			call := tool.Call{ID: "c", Name: "t", Args: json.RawMessage(`{}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFeaturesIdle shows what the scale features cost when they are
// configured but not in the way: a subscriber that filters the call out,
// generous limits, history on or off.
func BenchmarkFeaturesIdle(b *testing.B) {
	cases := []struct {
		name string
		opts []executor.Option
		sub  bool
	}{
		{"plain_no_history", []executor.Option{executor.WithHistory(0)}, false},
		{"plain", nil, false},
		{"limits", []executor.Option{executor.WithMaxConcurrency(64), executor.WithAgentConcurrency(16), executor.WithToolConcurrency(16)}, false},
		{"subscriber", nil, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ex := executor.MustNew(scRegistry(b, scRawNoop("t")), tc.opts...)
			if tc.sub {
				ch, stop := ex.Subscribe(executor.EventFilter{Tools: []string{"other"}})
				defer stop()
				_ = ch
			}
			call := tool.Call{ID: "c", Name: "t", Agent: "ann", Args: json.RawMessage(`{}`)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLockOverheadInterleaved runs the same call with and without a
// declared resource in alternating blocks and reports the ratio (x_lock),
// for a no-op tool (the worst case: the lock is most of the work), written
// or read, and for the core benchmark's search tool (a typical small tool).
func BenchmarkLockOverheadInterleaved(b *testing.B) {
	declare := func(access tool.Access) tool.Option {
		res := []tool.Resource{{Key: "file:/src/main.go", Access: access}}
		return tool.WithResources(func(json.RawMessage) []tool.Resource { return res })
	}
	none := tool.WithResources(func(json.RawMessage) []tool.Resource { return nil })
	cases := []struct {
		name   string
		mk     func(tool.Option) tool.Tool
		args   json.RawMessage
		access tool.Access
	}{
		{"noop", func(o tool.Option) tool.Tool { return scRawNoop("t", o) }, json.RawMessage(`{}`), tool.Write},
		{"noop_read", func(o tool.Option) tool.Tool { return scRawNoop("t", o) }, json.RawMessage(`{}`), tool.Read},
		{"search", func(o tool.Option) tool.Tool { return tool.Func("t", "The t test tool", search, o) }, benchArgs, tool.Write},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			without := executor.MustNew(scRegistry(b, tc.mk(none)))
			with := executor.MustNew(scRegistry(b, tc.mk(declare(tc.access))))
			call := tool.Call{ID: "c", Name: "t", Args: tc.args}
			ctx := context.Background()
			run := func(ex *executor.Executor) func() {
				return func() {
					if _, err := ex.Execute(ctx, call); err != nil {
						b.Fatal(err)
					}
				}
			}
			benchcore.Interleave(b, 32, []string{"without", "lock"}, run(without), run(with))
		})
	}
}
