package logging_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A result further in that carries an error yet claims success is logged
// with the status the executor settles it on (tool.Result.SettledStatus),
// the error's, as metrics and the audit trail record it, not as a success.
func TestLogsTheSettledStatus(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	claims := extension.Func("claims", extension.PriorityDefault, func(extension.Handler) extension.Handler {
		return func(_ context.Context, req *extension.Request) *tool.Result {
			return &tool.Result{Status: tool.StatusSucceeded, Error: tool.NewError(tool.CodeUnavailable, "backend down")}
		}
	})
	ex := newExecutor(t, logging.New(zap.New(core)), claims)
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	require.Equal(t, tool.StatusFailed, res.Status, "the executor settles it")
	entries := logs.TakeAll()
	require.Len(t, entries, 1)
	assert.Equal(t, zapcore.ErrorLevel, entries[0].Level)
	assert.Equal(t, string(tool.StatusFailed), entries[0].ContextMap()["status"])
}
