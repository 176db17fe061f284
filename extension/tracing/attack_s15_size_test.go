package tracing_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A span holds what the call's callers chose only up to a bound: the call
// id (a model's or an MCP client's), the agent and the principal's id are
// strings of any length, and an error's message may be as long as the
// executor's output cap (1 MiB by default, a tool echoing what it was
// given). Each went whole onto the call span (and the backend span), so
// one call could put megabytes into the trace pipeline, which exporters
// and backends drop or choke on. A trace needs a recognisable prefix.
func TestAttackS15SpanValuesAreBounded(t *testing.T) {
	const huge = 1 << 20
	long := strings.Repeat("é", huge/2) // two bytes each: a cut must not split one
	reg := registry.New()
	reg.MustRegister(tool.New("work", "Does work", func(context.Context, tool.Call) (*tool.Result, error) {
		return nil, tool.NewError(tool.CodeUnavailable, "backend down: "+long)
	}))
	tp, rec := newProvider(t)
	tr := tracing.New(tracing.WithTracerProvider(tp))
	ex := executor.MustNew(reg, executor.WithExtensions(tr, tr.Backend()))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "id-" + long, Name: "work", Args: json.RawMessage(`{}`),
		Agent: "agent-" + long, Principal: tool.Principal{ID: "p-" + long}})
	require.Error(t, err)

	spans := rec.Ended()
	require.Len(t, spans, 2, "the call span and the backend span")
	const bound = tracing.MaxValueBytes
	for _, s := range spans {
		total := 0
		for _, kv := range s.Attributes() {
			v := kv.Value.String()
			total += len(v)
			assert.LessOrEqual(t, len(v), bound, "span %q: attribute %s is %d bytes", s.Name(), kv.Key, len(v))
			assert.True(t, strings.ToValidUTF8(v, "\uFFFD") == v, "span %q: attribute %s was cut inside a character", s.Name(), kv.Key)
		}
		d := s.Status().Description
		assert.LessOrEqual(t, len(d), bound, "span %q: status description is %d bytes", s.Name(), len(d))
		assert.Contains(t, d, "backend down", "the description keeps its head")
		assert.LessOrEqual(t, total, 4*bound, "span %q: %d bytes of attributes", s.Name(), total)
	}
	call := spans[1]
	if call.Name() != "execute_tool work" {
		call = spans[0]
	}
	a := attrs(call)
	assert.True(t, strings.HasPrefix(a[tracing.KeyCallID].AsString(), "id-é"), "the call id keeps its head")
	assert.True(t, strings.HasPrefix(a[tracing.KeyAgent].AsString(), "agent-é"))
	assert.True(t, strings.HasPrefix(a[tracing.KeyPrincipal].AsString(), "p-é"))
}
