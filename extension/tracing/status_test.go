package tracing_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A result further in that carries an error yet claims success gets the
// status the executor settles it on (tool.Result.SettledStatus), the
// error's, as metrics and the audit trail record it, not "succeeded".
func TestSpanHasTheSettledStatus(t *testing.T) {
	tp, rec := newProvider(t)
	claims := extension.Func("claims", extension.PriorityDefault, func(extension.Handler) extension.Handler {
		return func(_ context.Context, req *extension.Request) *tool.Result {
			return &tool.Result{Status: tool.StatusSucceeded, Error: tool.NewError(tool.CodeUnavailable, "backend down")}
		}
	})
	ex := newExecutor(t, nil, tracing.New(tracing.WithTracerProvider(tp)), claims)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "work", Args: json.RawMessage(`{}`)})
	require.Equal(t, tool.StatusFailed, res.Status, "the executor settles it")
	spans := rec.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, "failed", attrs(spans[0])[tracing.KeyStatus].AsString())
	assert.Equal(t, codes.Error, spans[0].Status().Code)
}
