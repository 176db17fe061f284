package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
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

// A development logger, as zap.NewDevelopment builds it (console encoder,
// stack traces from Warn), writing real lines: a denied call (Warn) and a
// tool's own failure (Error) print one line each and no stack trace.
func TestDevelopmentLoggerPrintsNoStackForRefusals(t *testing.T) {
	var buf bytes.Buffer
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core, zap.Development(), zap.AddCaller(), zap.AddStacktrace(zapcore.WarnLevel))), deny)
	_, err := ex.Execute(context.Background(), tool.Call{ID: "d1", Name: "login", Args: json.RawMessage(`{"user":"m"}`), Principal: tool.Principal{ID: "mallory"}})
	require.Error(t, err)
	_, err = ex.Execute(context.Background(), tool.Call{ID: "f1", Name: "fail", Args: json.RawMessage(`{}`)})
	require.Error(t, err)
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, "one line per call, no stack frames:\n%s", out)
	assert.Contains(t, lines[0], "WARN")
	assert.Contains(t, lines[1], "ERROR")
	assert.NotContains(t, out, "executor.(*Executor)", "no executor frames")
	assert.NotContains(t, out, "\t/", "no file paths of stack frames")
}

// The developer's side of a refusal (the cause, tool.Error.Err), which no
// model is sent, is logged: the model-facing message of an anonymous call
// only says to sign in.
func TestCauseIsLogged(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core)), auth.New())
	_, err := ex.Execute(context.Background(), tool.Call{ID: "a1", Name: "login", Args: json.RawMessage(`{"user":"m"}`)})
	require.ErrorIs(t, err, tool.ErrUnauthorized)
	entries := logs.All()
	require.Len(t, entries, 1)
	f := entries[0].ContextMap()
	assert.NotContains(t, f["error"], "tool.Call.Principal")
	assert.Contains(t, f["cause"], "set tool.Call.Principal")

	// A Go func's plain error is its own cause: not logged twice.
	core, logs = observer.New(zapcore.DebugLevel)
	reg := registry.New()
	reg.MustRegister(tool.Func("lookup", "Look up", func(context.Context, struct{}) (string, error) {
		return "", errors.New("no such order")
	}))
	_, err = executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core)))).Execute(context.Background(), tool.Call{ID: "l1", Name: "lookup"})
	require.ErrorIs(t, err, tool.ErrToolError)
	f = logs.All()[0].ContextMap()
	assert.Equal(t, "no such order", f["error"])
	assert.NotContains(t, f, "cause")
}
