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
