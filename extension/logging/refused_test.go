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

	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestRefusedCallsAreLogged(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core), logging.WithArgs(true)))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "r1", Name: "lgoin", Args: json.RawMessage(`{}`)})
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "r2", Name: "login", Args: json.RawMessage(`{"user":1,"pin":"` + pinValue + `"}`)})
	entries := logs.All()
	require.Len(t, entries, 2, "every call leaves its line, also those refused before the chain")
	assert.Equal(t, zapcore.ErrorLevel, entries[0].Level)
	assert.Equal(t, "not_found", entries[0].ContextMap()["error_code"])
	assert.Equal(t, "lgoin", entries[0].ContextMap()["tool"])
	assert.Equal(t, "invalid_arguments", entries[1].ContextMap()["error_code"])
	assert.NotContains(t, entries[1].ContextMap()["args"], pinValue, "a refused call's secrets are redacted too")
}

// A development logger (zap.NewDevelopment adds stack traces from Warn)
// must not print a stack trace for every denied call.
func TestDeniedCallsCarryNoStackTrace(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ext := logging.New(zap.New(core, zap.AddStacktrace(zapcore.WarnLevel)))
	call := tool.Call{ID: "d1", Name: "drop_table"}
	ext.Refused(context.Background(), &call, nil, &tool.Result{
		Status: tool.StatusDenied,
		Error:  &tool.Error{Code: tool.CodePolicyDenied, Message: "policy rule tools.drop_table.forbidden_in_modes"},
	})
	entries := logs.All()
	require.Len(t, entries, 1)
	assert.Equal(t, zapcore.WarnLevel, entries[0].Level)
	assert.Empty(t, entries[0].Stack, "a denial is an outcome, not a bug: no stack trace")
}
