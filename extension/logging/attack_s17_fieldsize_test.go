package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's id and a refused call's tool name are a model's (or an MCP
// client's) to choose, of any length, and its session, agent and
// principal come from callers too: each went whole into the log line, so
// a 1 MiB tool name and call id made a 3 MiB line (the executor's error
// quotes the name too), past what log shippers take (Docker splits lines
// at 16 KiB, CloudWatch refuses events over 256 KiB, Fluent Bit skips long
// lines): the line of a probing model's call was dropped, or arrived as
// pieces no JSON reader takes. The audit trail keeps 4 KiB of a tool name
// or call id and tracing 4 KiB of each value; the log line keeps
// 4 KiB of each, whole characters, and says it cut.
func TestAttackS17ModelChosenFieldsAreBounded(t *testing.T) {
	const maxField = 4 << 10
	var buf bytes.Buffer
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
	reg := registry.New()
	reg.MustRegister(tool.Func("say", "Say", func(context.Context, struct{}) (string, error) { return "ok", nil }))
	ex := executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core))))
	big := strings.Repeat("é", 1<<19) // 1 MiB, two bytes a character: a cut must not split one
	ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "p" + big, Tenant: "t" + big})
	_, _ = ex.Execute(ctx, tool.Call{ID: "id" + big, Name: "nope" + big, Args: json.RawMessage(`{}`)})
	_, _ = ex.Execute(ctx, tool.Call{ID: "id" + big, Name: "say", Args: json.RawMessage(`{}`), Session: "s" + big, Agent: "a" + big,
		TraceID: "tr" + big, SpanID: "sp" + big})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 2)
	for i, line := range lines {
		var fields map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &fields))
		for _, key := range []string{"call_id", "tool", "principal", "tenant", "session", "agent", "trace_id", "span_id"} {
			v, ok := fields[key].(string)
			if !ok || v == "say" {
				continue
			}
			assert.LessOrEqual(t, len(v), maxField+64, "line %d: %s is %d bytes", i+1, key, len(v))
			assert.True(t, utf8.ValidString(v) && !strings.Contains(v, "\uFFFD"), "line %d: %s cut inside a character", i+1, key)
			assert.Contains(t, v, "é", "line %d: %s keeps its head", i+1, key)
			assert.Contains(t, v, "bytes cut", "line %d: %s says it was cut", i+1, key)
		}
		if i == 1 {
			assert.Less(t, len(line), 16*maxField, "a successful call's line holds only bounded fields")
		} else {
			// The executor's error quotes the name whole: it is held as
			// a cause is (64 KiB, head and tail).
			assert.Less(t, len(line), 16*maxField+64<<10, "a refused call's line holds only bounded fields")
		}
	}
	assert.Contains(t, lines[0], `"tool":"nopeé`)
}
