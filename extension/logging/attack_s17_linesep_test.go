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

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR end a line for
// much that reads logs: Python's str.splitlines, editors (VS Code), and
// log viewers built on them. zap writes both raw, in its JSON and console
// encoders alike (only C0 controls are escaped), and so did the
// extension: a tool's error (or a model's argument, with WithArgs) holding
// U+2028 and a JSON object made a log line that such a reader took for
// two, the second a record of the attacker's ("tool":"deploy",
// "status":"succeeded"). The extension writes them visibly, as it writes
// the C1 controls: \u2028, which a JSON reader decodes to the same text.
func TestAttackS17LogLinesHoldNoLineSeparators(t *testing.T) {
	const forged = "\u2028{\"level\":\"info\",\"msg\":\"tool call\",\"tool\":\"deploy\",\"principal\":\"admin\",\"status\":\"succeeded\"}\u2029"
	for _, enc := range []struct {
		name string
		new  func(zapcore.EncoderConfig) zapcore.Encoder
	}{{"json", zapcore.NewJSONEncoder}, {"console", zapcore.NewConsoleEncoder}} {
		t.Run(enc.name, func(t *testing.T) {
			var buf bytes.Buffer
			core := zapcore.NewCore(enc.new(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
			reg := registry.New()
			reg.MustRegister(tool.Func("say", "Say", func(_ context.Context, in struct {
				Text string `json:"text"`
			}) (string, error) {
				return "", &tool.Error{Code: tool.CodeInvalidArguments, Message: "bad " + in.Text, Err: errors.New("cause " + in.Text)}
			}))
			ex := executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core), logging.WithArgs(true))))
			// Raw in the JSON text: valid JSON, and nothing to redact, so
			// the arguments are logged as they came.
			args := json.RawMessage(`{"text":"` + strings.ReplaceAll(forged, `"`, `\"`) + `"}`)
			require.True(t, json.Valid(args))
			ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "bob" + forged, Tenant: "acme" + forged})
			_, _ = ex.Execute(ctx, tool.Call{ID: "c1" + forged, Name: "say", Args: args, Session: "s" + forged, Agent: "a" + forged})
			_, _ = ex.Execute(ctx, tool.Call{ID: "c2", Name: "nope" + forged, Args: args})
			out := buf.String()
			assert.NotContains(t, out, "\u2028", "a raw U+2028 in the log")
			assert.NotContains(t, out, "\u2029", "a raw U+2029 in the log")
			assert.Equal(t, 2, strings.Count(out, "\n"), "one line a call")
			assert.Contains(t, out, `u2028{`, "the character is written visibly")
			if enc.name == "json" {
				var line struct {
					Error string
					Args  struct{ Text string }
				}
				require.NoError(t, json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &line))
				assert.Equal(t, forged, line.Args.Text, "the arguments decode to what the call said")
				// Strings read as the C1 controls do: the escape is text.
				assert.Equal(t, `bad \u2028`+forged[len("\u2028"):len(forged)-len("\u2029")]+`\u2029`, line.Error, "the error shows what the tool said")
			}
		})
	}
}
