package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/tool"
)

// WithMessage replaces the message of every line the extension writes:
// calls that succeeded, failed, were denied further in, or were refused
// before the chain. The fields stay as they are.
func TestWithMessageReplacesEveryLinesMessage(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	ex := newExecutor(t, logging.New(zap.New(core), logging.WithMessage("agent tool")), deny)
	ctx := context.Background()
	_, _ = ex.Execute(ctx, tool.Call{ID: "m1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	_, _ = ex.Execute(ctx, tool.Call{ID: "m2", Name: "fail"})
	_, _ = ex.Execute(ctx, tool.Call{ID: "m3", Name: "login", Args: json.RawMessage(`{"user":"m"}`), Principal: tool.Principal{ID: "mallory"}})
	_, _ = ex.Execute(ctx, tool.Call{ID: "m4", Name: "lgoin", Args: json.RawMessage(`{}`)})

	entries := logs.All()
	require.Len(t, entries, 4)
	want := map[string]string{"m1": "succeeded", "m2": "failed", "m3": "denied", "m4": "failed"}
	for _, e := range entries {
		assert.Equal(t, "agent tool", e.Message)
		f := e.ContextMap()
		assert.Equal(t, want[f["call_id"].(string)], f["status"], f["call_id"])
	}
	assert.Zero(t, logs.FilterMessage(logging.Message).Len(), "no line keeps the default message")

	// On a real encoder, the message is the line's "msg".
	var buf bytes.Buffer
	jcore := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
	ex = newExecutor(t, logging.New(zap.New(jcore), logging.WithMessage("agent tool")))
	_, _ = ex.Execute(ctx, tool.Call{ID: "j1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(buf.String())), &line), buf.String())
	assert.Equal(t, "agent tool", line["msg"])
	assert.Equal(t, "j1", line["call_id"])

	// Without the option the message is logging.Message.
	core, logs = observer.New(zapcore.DebugLevel)
	ex = newExecutor(t, logging.New(zap.New(core)))
	_, _ = ex.Execute(ctx, tool.Call{ID: "d1", Name: "login", Args: json.RawMessage(`{"user":"bob"}`)})
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, logging.Message, logs.All()[0].Message)
}
