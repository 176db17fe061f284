package tracing

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The extension kept "execute_tool <name>" for every tool name it ever
// saw, for good: the names of an MCP server that lists millions of tools
// (or renames them on every listing), or of a chain that is handed the
// model's names, grew the map without end. And a name went whole into the
// span's name and its gen_ai.tool.name, where the package holds every
// other string to MaxValueBytes. The cache now keeps maxCachedNames names,
// and a name is held to MaxValueBytes.
func TestAttackS18SpanNameCacheIsBounded(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e := New(WithTracerProvider(tp))
	h := e.Wrap(func(context.Context, *extension.Request) *tool.Result {
		return &tool.Result{Status: tool.StatusSucceeded}
	})
	for i := range 4 * maxCachedNames {
		h(context.Background(), &extension.Request{Call: tool.Call{ID: "c", Name: fmt.Sprintf("tool_%d", i)}})
	}
	n := 0
	e.names.Range(func(any, any) bool { n++; return true })
	assert.LessOrEqual(t, n, maxCachedNames, "the cache holds every name it saw")
	assert.Len(t, rec.Ended(), 4*maxCachedNames)
	assert.Equal(t, "execute_tool tool_7", rec.Ended()[7].Name(), "a name past the bound is named as before")

	long := strings.Repeat("é", 1<<19) // a MiB
	h(context.Background(), &extension.Request{Call: tool.Call{ID: "c", Name: long}})
	ended := rec.Ended()
	s := ended[len(ended)-1]
	assert.LessOrEqual(t, len(s.Name()), len("execute_tool ")+MaxValueBytes)
	found := false
	for _, kv := range s.Attributes() {
		if kv.Key == KeyTool {
			found = true
			assert.LessOrEqual(t, len(kv.Value.AsString()), MaxValueBytes, "gen_ai.tool.name")
		}
	}
	assert.True(t, found)
}
