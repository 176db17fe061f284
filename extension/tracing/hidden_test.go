package tracing_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/tracing"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call of a tool hidden from its principal is answered not_found; its
// span, an operator's record outside auth, says what auth answered, and a
// name no tool has gets no span (it never reaches the chain).
// docs/extensions.md says so: traces tell hidden tools from none.
func TestHiddenToolCallSpanIsAuthsRefusal(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("purge_backups", "Purge the backups", func(context.Context, struct{}) (string, error) { return "purged", nil }))
	tp, rec := newProvider(t)
	ex := executor.MustNew(reg, executor.WithExtensions(tracing.New(tracing.WithTracerProvider(tp)), auth.New(auth.Allow("ops", "purge_backups"))))
	bob := tool.Principal{ID: "bob", Roles: []string{"dev"}}
	hidden, _ := ex.Execute(context.Background(), tool.Call{Name: "purge_backups", Args: json.RawMessage(`{}`), Principal: bob})
	unknown, _ := ex.Execute(context.Background(), tool.Call{Name: "purge_backupz", Args: json.RawMessage(`{}`), Principal: bob})
	require.NotNil(t, hidden.Error)
	assert.Equal(t, tool.CodeNotFound, hidden.Error.Code)
	assert.Equal(t, tool.CodeNotFound, unknown.Error.Code)
	spans := rec.Ended()
	require.Len(t, spans, 1, "only the hidden tool's call has a span")
	assert.Equal(t, "execute_tool purge_backups", spans[0].Name())
	assert.Equal(t, string(tool.CodeUnauthorized), attrs(spans[0])[tracing.KeyErrorType].AsString())
}
