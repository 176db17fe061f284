package metrics_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestRefusedCallsAreCounted(t *testing.T) {
	m := metrics.New()
	ex := newExecutor(t, m)
	for _, name := range []string{"invented_1", "invented_2"} {
		_, _ = ex.Execute(context.Background(), tool.Call{Name: name, Args: json.RawMessage(`{}`)})
	}
	_, _ = ex.Execute(context.Background(), tool.Call{Name: "ok", Args: json.RawMessage(`[]`)})
	snap := m.Snapshot()
	assert.Equal(t, uint64(2), snap.Calls(metrics.UnknownTool, tool.StatusFailed), "invented names share one label")
	assert.NotContains(t, snap.Tools, "invented_1")
	assert.Equal(t, uint64(1), snap.Calls("ok", tool.StatusFailed))
	assert.Zero(t, snap.InFlight())
}
