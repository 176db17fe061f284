package benchall_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/extension/retry"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/internal/benchcore"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The tool, arguments and baseline of executor.BenchmarkCore.
type SearchArgs = benchcore.SearchArgs

var (
	search    = benchcore.Search
	benchArgs = benchcore.Args
)

// newBaseline returns the shared plain baseline.
func newBaseline(b *testing.B) func() {
	run, err := benchcore.NewBaseline()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	return func() {
		if err := run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

var principal = tool.Principal{ID: "alice", Roles: []string{"analyst"}, Tenant: "acme"}

// governance has a path rule that the benchmark's call passes: "query" is
// declared a path field of search, and "sandbox escape" is under no
// forbidden pattern.
const governance = `
version: 1
global:
  mode: normal
  forbidden_paths: ["/etc/**", "**/.ssh/**"]
  max_arg_bytes: 64KiB
tools:
  search:
    allowed_in_modes: [normal, alert]
    forbidden_in_modes: [lockdown]
    path_fields: [query]
    forbidden_paths: ["/System/**"]
`

// builtins returns every built-in extension, configured as issue asks, and
// a function that releases what they hold (the audit trail).
func builtins(b *testing.B) ([]extension.Extension, func()) {
	b.Helper()
	pol, err := policy.Parse([]byte(governance))
	if err != nil {
		b.Fatal(err)
	}
	rl := ratelimit.New(ratelimit.PerToolPrincipal("1000000000/s"))
	if err := rl.Check(); err != nil {
		b.Fatal(err)
	}
	az := auth.New(auth.WithRules(auth.Rule{Role: "analyst", Tools: []string{"search"}}), auth.DenyByDefault())
	if err := az.Check(); err != nil {
		b.Fatal(err)
	}
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(discard{}), zapcore.InfoLevel))
	trail, err := audit.Open(filepath.Join(b.TempDir(), "audit.jsonl"), audit.WithSyncInterval(250*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	exts := []extension.Extension{
		az,
		pol,
		rl,
		logging.New(log),
		metrics.New(),
		tracing.New(tracing.WithTracerProvider(noop.NewTracerProvider())),
		trail,
		retry.New(),
		cache.New(), // search is not read-only: every call misses the cache
	}
	return exts, func() {
		if err := trail.Close(); err != nil {
			b.Error(err)
		}
	}
}

// discard is io.Discard as a zapcore.WriteSyncer.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Sync() error                 { return nil }

// BenchmarkAllExtensions compares, in one run, the plain baseline of
// executor.BenchmarkCore with Execute alone, with every built-in extension
// (auth, policy, rate limit, logging, metrics, tracing, batched audit, retry,
// cache missing), and with approval added. Target: all ≤ 1.6× baseline.
func BenchmarkAllExtensions(b *testing.B) {
	ctx := context.Background()
	baseline := newBaseline(b)
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			baseline()
		}
	})
	run := func(b *testing.B, exts ...extension.Extension) {
		reg := registry.New()
		reg.MustRegister(tool.Func("search", "The search test tool", search))
		ex := executor.MustNew(reg, executor.WithExtensions(exts...))
		call := tool.Call{ID: "c1", Name: "search", Args: benchArgs, Principal: principal, Session: "s1"}
		// One call outside the loop: it must succeed, so that the loop
		// measures the full path and not an early refusal.
		res, err := ex.Execute(ctx, call)
		if err != nil {
			b.Fatalf("the benchmark call fails: %v", err)
		}
		if !res.OK() {
			b.Fatalf("the benchmark call fails: %+v", res)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("execute", func(b *testing.B) { run(b) })
	b.Run("all", func(b *testing.B) {
		exts, done := builtins(b)
		defer done()
		run(b, exts...)
	})
	b.Run("all_plus_approval", func(b *testing.B) {
		exts, done := builtins(b)
		defer done()
		// allow_all: the policy approves the call without asking anybody.
		ap := approvalgate.New(nil, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))
		run(b, append(exts, ap, ap.Guard())...)
	})
	b.Run("all_plus_approval_asked", func(b *testing.B) {
		exts, done := builtins(b)
		defer done()
		// always_ask with an approver that approves at once: the cost of
		// consulting an approver, with no human in the loop.
		approve := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Approved("bench"), nil
		})
		ap := approvalgate.New(approve, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk)), approvalgate.WithSessionMemory(0))
		run(b, append(exts, ap, ap.Guard())...)
	})
}

// BenchmarkEachExtension runs Execute with one built-in at a time, to see
// which one costs what (compare with "none" in the same run).
func BenchmarkEachExtension(b *testing.B) {
	ctx := context.Background()
	exts, done := builtins(b)
	defer done()
	for _, x := range append([]extension.Extension{nil}, exts...) {
		name := "none"
		var list []extension.Extension
		if x != nil {
			name = x.Name()
			list = []extension.Extension{x}
		}
		b.Run(name, func(b *testing.B) {
			reg := registry.New()
			reg.MustRegister(tool.Func("search", "The search test tool", search))
			ex := executor.MustNew(reg, executor.WithExtensions(list...))
			call := tool.Call{ID: "c1", Name: "search", Args: benchArgs, Principal: principal, Session: "s1"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ex.Execute(ctx, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAllExtensionsInterleaved runs the baseline, Execute alone and
// Execute with every built-in in alternating blocks of one loop, so that a
// shared machine's drifting speed hits them alike, and reports the ratios
// to the baseline (x_execute, x_all). Target: x_all ≤ 1.6.
func BenchmarkAllExtensionsInterleaved(b *testing.B) { allInterleaved(b, search) }

// allInterleaved runs the validated hand-rolled baseline of fn
// (benchcore.NewBaselineOf), Execute alone and Execute with every built-in
// on fn in alternating blocks of one loop.
func allInterleaved[O any](b *testing.B, fn func(context.Context, SearchArgs) (O, error)) {
	ctx := context.Background()
	run, err := benchcore.NewBaselineOf(fn)
	if err != nil {
		b.Fatal(err)
	}
	baseline := func() {
		if err := run(ctx); err != nil {
			b.Fatal(err)
		}
	}
	newEx := func(exts ...extension.Extension) *executor.Executor {
		reg := registry.New()
		reg.MustRegister(tool.Func("search", "The search test tool", fn))
		return executor.MustNew(reg, executor.WithExtensions(exts...))
	}
	exts, done := builtins(b)
	defer done()
	plain, all := newEx(), newEx(exts...)
	call := tool.Call{ID: "c1", Name: "search", Args: benchArgs, Principal: principal, Session: "s1"}
	if res, err := all.Execute(ctx, call); err != nil || !res.OK() {
		b.Fatalf("the benchmark call fails: %v", err)
	}
	execute := func(ex *executor.Executor) func() {
		return func() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchcore.Interleave(b, 32, []string{"baseline", "execute", "all"}, baseline, execute(plain), execute(all))
}

// BenchmarkEachExtensionInterleaved runs the baseline, Execute alone and
// Execute with each built-in alone in alternating blocks of one loop, and
// reports each one's ratio to the baseline (x_none, x_<extension>): what
// each built-in adds, steadier than BenchmarkEachExtension's ns/op.
func BenchmarkEachExtensionInterleaved(b *testing.B) {
	ctx := context.Background()
	baseline := newBaseline(b)
	exts, done := builtins(b)
	defer done()
	call := tool.Call{ID: "c1", Name: "search", Args: benchArgs, Principal: principal, Session: "s1"}
	names := []string{"baseline", "none"}
	paths := []func(){baseline}
	for _, x := range append([]extension.Extension{nil}, exts...) {
		var list []extension.Extension
		if x != nil {
			list = []extension.Extension{x}
			names = append(names, x.Name())
		}
		reg := registry.New()
		reg.MustRegister(tool.Func("search", "The search test tool", search))
		ex := executor.MustNew(reg, executor.WithExtensions(list...))
		if res, err := ex.Execute(ctx, call); err != nil || !res.OK() {
			b.Fatalf("the benchmark call fails with %v: %v", names[len(names)-1], err)
		}
		paths = append(paths, func() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		})
	}
	benchcore.Interleave(b, 32, names, paths...)
}

// work1ms is a tool that does 1 ms of work: it spins on the clock, so that
// its time is the same on every call (a sleep would add the timer's
// jitter, tens of microseconds, to the very thing measured).
func work1ms(_ context.Context, in SearchArgs) (string, error) {
	for t0 := time.Now(); time.Since(t0) < time.Millisecond; {
	}
	return "done " + in.Query, nil
}

// BenchmarkAll1msToolInterleaved is issue 17's realistic measure: a tool
// that does 1 ms of work, run by the hand-rolled baseline (validate,
// decode, call, encode), through Execute alone, and through Execute with
// every built-in extension, in alternating blocks of one loop. x_all - 1
// is what every built-in together adds to the call: the target is at most
// 1%.
func BenchmarkAll1msToolInterleaved(b *testing.B) { allInterleaved(b, work1ms) }
