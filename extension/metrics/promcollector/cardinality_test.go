package promcollector_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/extension/metrics/promcollector"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A model that calls 20,000 tool names no tool has, each from another
// principal, tenant and session, makes no new series and no new in-memory
// entry: unknown names share the label UnknownTool, and principals,
// tenants and sessions are no labels. Measured by the heap, not the clock:
// one series per name would hold several MiB.
func TestUnknownNamesGrowNoSeries(t *testing.T) {
	col := promcollector.New()
	preg := prom.NewRegistry()
	require.NoError(t, preg.Register(col))
	ex := newExecutor(t, col)
	call := func(i int) {
		n := strconv.Itoa(i)
		_, _ = ex.Execute(context.Background(), tool.Call{ID: "c" + n, Name: "invented_tool_name_" + n, Session: "s" + n,
			Principal: tool.Principal{ID: "p" + n, Tenant: "t" + n}, Args: json.RawMessage(`{}`)})
	}
	call(0) // the one series of unknown names
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 1; i <= 20_000; i++ {
		call(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap grown: %d bytes", grown)
	assert.Less(t, grown, int64(1<<20), "the heap grew by %d bytes over 20,000 invented names", grown)

	mfs, err := preg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "tool" {
					assert.Equal(t, metrics.UnknownTool, lp.GetValue(), "%s", mf.GetName())
				}
			}
		}
	}
	runtime.KeepAlive(ex)
}
