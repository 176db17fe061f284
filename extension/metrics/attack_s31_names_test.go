package metrics_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// labels is a Recorder that keeps every tool label it is given, as a
// Prometheus or OpenTelemetry client keeps a series per label value.
type labels struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (l *labels) add(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[name] = true
}

func (l *labels) Start(name string)            { l.add(name) }
func (l *labels) Finish(o metrics.Observation) { l.add(o.Tool) }

// A model that calls 100,000 tool names no tool has, and a principal that
// calls, 100,000 times under as many ids, a tool auth refuses it and
// names no tool it may call, make no entry per name in the metrics: not in
// the in-memory recorder, not in another recorder's labels. Only the
// registered tools and metrics.UnknownTool are ever labels, so the metrics'
// memory is bounded by the registry, whatever the calls name.
func TestAttackS31UnknownAndRefusedNamesStayBounded(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("purge_backups", "Purge the backups", func(context.Context, struct{}) (string, error) { return "purged", nil }),
		tool.Func("status", "Service status", func(context.Context, struct{}) (string, error) { return "up", nil }),
	)
	rec := &labels{}
	m := metrics.New(metrics.WithRecorder(rec))
	ex := executor.MustNew(reg, executor.WithExtensions(m, auth.New(auth.Allow("ops", "purge_backups"), auth.Allow("dev", "status"))))
	ctx := context.Background()
	const n = 100_000
	for i := range n {
		s := strconv.Itoa(i)
		bob := tool.Principal{ID: "bob" + s, Roles: []string{"dev"}, Tenant: "t" + s}
		switch i % 4 {
		case 0: // a name no tool has
			_, _ = ex.Execute(ctx, tool.Call{ID: "c" + s, Name: "invented_" + s, Args: json.RawMessage(`{}`), Principal: bob})
		case 1: // a tool hidden from the principal
			_, _ = ex.Execute(ctx, tool.Call{ID: "c" + s, Name: "purge_backups", Args: json.RawMessage(`{}`), Principal: bob})
		case 2: // a hidden tool with arguments that break its schema
			_, _ = ex.Execute(ctx, tool.Call{ID: "c" + s, Name: "purge_backups", Args: json.RawMessage(`[` + s + `]`), Principal: bob})
		default: // a refusal reported by a host (an agent loop's undeclared tool)
			call := tool.Call{ID: "c" + s, Name: "undeclared_" + s, Principal: bob}
			ex.ReportRefused(ctx, &call, tool.Fail(&call, tool.CodeNotFound, "not declared"))
		}
	}
	allowed := []string{"purge_backups", "status", metrics.UnknownTool}
	snap := m.Snapshot()
	assert.LessOrEqual(t, len(snap.Tools), len(allowed), "in-memory entries after %d calls of distinct names", n)
	for name := range snap.Tools {
		assert.Contains(t, allowed, name, "an in-memory entry for a name no tool has")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	assert.LessOrEqual(t, len(rec.seen), len(allowed), "labels a recorder was given after %d calls of distinct names", n)
	for name := range rec.seen {
		assert.Contains(t, allowed, name, "a label for a name no tool has")
	}
	var total uint64
	for _, ts := range snap.Tools {
		total += ts.Total()
	}
	require.Equal(t, uint64(n), total, "every call is counted")
	assert.Zero(t, snap.InFlight())
}
