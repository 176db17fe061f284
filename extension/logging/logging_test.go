package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type loginIn struct {
	User     string `json:"user"`
	Password string `json:"password,omitempty"`
	PIN      string `json:"pin,omitempty" toolbelt:"secret"`
	Items    []struct {
		Key  string `json:"key,omitempty" toolbelt:"secret"`
		Name string `json:"name,omitempty"`
	} `json:"items,omitempty"`
}

type okOut struct {
	OK bool `json:"ok"`
}

const (
	pinValue  = "pin-4242-secret"
	passValue = "hunter2-secret"
	keyValue  = "item-key-secret"
	rawToken  = "raw-schema-token-secret"
)

func newExecutor(t testing.TB, exts ...extension.Extension) *executor.Executor {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(
		tool.Func("login", "Log in", func(_ context.Context, in loginIn) (okOut, error) { return okOut{OK: true}, nil }),
		tool.Func("fail", "Always fails", func(context.Context, struct{}) (okOut, error) {
			return okOut{}, tool.NewError(tool.CodeUnavailable, "backend down")
		}),
		tool.Func("boom", "Panics", func(context.Context, struct{}) (okOut, error) { panic("kaboom") }),
		tool.Func("slow", "Sleeps past its deadline", func(ctx context.Context, _ struct{}) (okOut, error) {
			<-ctx.Done()
			return okOut{}, ctx.Err()
		}, tool.WithTimeout(20*time.Millisecond)),
		tool.New("raw", "Raw-schema tool", func(context.Context, tool.Call) (*tool.Result, error) {
			return &tool.Result{Output: json.RawMessage(`{"ok":true}`)}, nil
		}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"conn":{"type":"object","properties":{"dsn":{"type":"string"}}}}}`)),
			tool.WithSecrets("conn.dsn")),
	)
	return executor.MustNew(reg, executor.WithExtensions(exts...))
}

// deny is an extension further in that refuses every call to "login" made
// by principal "mallory".
var deny = extension.Func("deny", extension.PriorityAuth, func(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if req.Call.Principal.ID == "mallory" {
			return tool.Fail(&req.Call, tool.CodeUnauthorized, "mallory may not")
		}
		return next(ctx, req)
	}
})

func TestLevelsAndFields(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core)), deny)
	ctx := context.Background()

	tests := []struct {
		name   string
		call   tool.Call
		level  zapcore.Level
		status tool.Status
		code   tool.Code
	}{
		{"succeeded is info", tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`), Principal: tool.Principal{ID: "bob"}, Agent: "planner", TraceID: "t-1", SpanID: "s-1"}, zapcore.InfoLevel, tool.StatusSucceeded, ""},
		{"denied is warn", tool.Call{ID: "c2", Name: "login", Args: json.RawMessage(`{"user":"m"}`), Principal: tool.Principal{ID: "mallory"}}, zapcore.WarnLevel, tool.StatusDenied, tool.CodeUnauthorized},
		{"failed is error", tool.Call{ID: "c3", Name: "fail"}, zapcore.ErrorLevel, tool.StatusFailed, tool.CodeUnavailable},
		{"timeout is error", tool.Call{ID: "c4", Name: "slow"}, zapcore.ErrorLevel, tool.StatusTimedOut, tool.CodeTimeout},
		{"panic is error", tool.Call{ID: "c5", Name: "boom"}, zapcore.ErrorLevel, tool.StatusFailed, tool.CodePanic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs.TakeAll()
			_, _ = ex.Execute(ctx, tc.call)
			entries := logs.TakeAll()
			require.Len(t, entries, 1, "one line per call")
			e := entries[0]
			assert.Equal(t, tc.level, e.Level)
			assert.Equal(t, logging.Message, e.Message)
			f := e.ContextMap()
			assert.Equal(t, tc.call.ID, f["call_id"])
			assert.Equal(t, tc.call.Name, f["tool"])
			assert.Equal(t, string(tc.status), f["status"])
			assert.Contains(t, f, "duration")
			assert.EqualValues(t, 1, f["attempts"])
			if tc.code != "" {
				assert.Equal(t, string(tc.code), f["error_code"])
				assert.NotEmpty(t, f["error"])
			} else {
				assert.NotContains(t, f, "error_code")
			}
			if tc.call.Principal.ID != "" {
				assert.Equal(t, tc.call.Principal.ID, f["principal"])
			}
			if tc.call.TraceID != "" {
				assert.Equal(t, tc.call.TraceID, f["trace_id"])
				assert.Equal(t, tc.call.SpanID, f["span_id"])
				assert.Equal(t, tc.call.Agent, f["agent"])
			}
			if tc.code == tool.CodePanic {
				assert.Contains(t, f["stack"], "goroutine", "a panic is logged with its stack")
			} else {
				assert.NotContains(t, f, "stack")
			}
			assert.NotContains(t, f, "args", "arguments are not logged unless asked")
		})
	}
}

func TestSuccessLevelOption(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core), logging.WithSuccessLevel(zapcore.DebugLevel)))
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	require.NoError(t, err)
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, zapcore.DebugLevel, logs.All()[0].Level)

	// At Info, a Debug success is not written at all.
	core, logs = observer.New(zapcore.InfoLevel)
	ex = newExecutor(t, logging.New(zap.New(core), logging.WithSuccessLevel(zapcore.DebugLevel)))
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	require.NoError(t, err)
	assert.Zero(t, logs.Len())
}

func TestArgsRedacted(t *testing.T) {
	// A real JSON encoder, so the test sees exactly the bytes a log file would.
	var buf bytes.Buffer
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	core := zapcore.NewCore(enc, zapcore.AddSync(&buf), zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core), logging.WithArgs(true)), deny)

	args := fmt.Sprintf(`{"user":"bob","password":%q,"pin":%q,"items":[{"key":%q,"name":"visible-name"}]}`, passValue, pinValue, keyValue)
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(args)})
	require.NoError(t, err)
	// Denied calls log their arguments too, still redacted.
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "c2", Name: "login", Args: json.RawMessage(args), Principal: tool.Principal{ID: "mallory"}})
	_, err = ex.Execute(context.Background(), tool.Call{ID: "c3", Name: "raw", Args: json.RawMessage(fmt.Sprintf(`{"conn":{"dsn":%q}}`, rawToken))})
	require.NoError(t, err)

	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	for _, secret := range []string{passValue, pinValue, keyValue, rawToken} {
		assert.NotContains(t, out, secret, "a secret reached the log")
	}
	var first struct {
		Args map[string]any `json:"args"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "bob", first.Args["user"], "non-secret arguments are logged as JSON")
	assert.Equal(t, "[REDACTED]", first.Args["pin"])
	assert.Equal(t, "[REDACTED]", first.Args["password"])
	assert.Contains(t, lines[0], "visible-name")
	assert.Contains(t, lines[2], `"dsn":"[REDACTED]"`, "WithSecrets paths of raw-schema tools are redacted")
}

func TestPriority(t *testing.T) {
	ext := logging.New(nil)
	assert.Equal(t, extension.PriorityLogging, ext.Priority())
	assert.Equal(t, "logging", ext.Name())
}

func TestNilLoggerUsesGlobal(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	undo := zap.ReplaceGlobals(zap.New(core))
	defer undo()
	ex := newExecutor(t, logging.New(nil))
	_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "fail"})
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, zapcore.ErrorLevel, logs.All()[0].Level)
}

func TestSeesExecutorErrorOfExtensionPanic(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	bad := extension.Func("bad", extension.PriorityPolicy, func(extension.Handler) extension.Handler {
		return func(context.Context, *extension.Request) *tool.Result { panic(errors.New("ext bug")) }
	})
	ex := newExecutor(t, logging.New(zap.New(core)), bad)
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "login", Args: json.RawMessage(`{"user":"x"}`)})
	require.Error(t, err)
	require.Equal(t, 1, logs.Len())
	e := logs.All()[0]
	assert.Equal(t, zapcore.ErrorLevel, e.Level)
	assert.Equal(t, string(tool.CodePanic), e.ContextMap()["error_code"])
	assert.Contains(t, e.ContextMap()["stack"], "goroutine")
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
