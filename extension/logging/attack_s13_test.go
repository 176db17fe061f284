package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// invisibleControls are characters a terminal acts on instead of printing:
// DEL, the C1 controls (VTE, GNU screen and Mosh read a UTF-8 U+009B as
// CSI, U+009D as OSC and U+0085 as a line break) and the bidirectional
// overrides and isolates, which reorder what is shown.
var invisibleControls = []rune{
	0x7f, 0x80, 0x85, 0x9b, 0x9c, 0x9d, 0x9f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
}

// A call's id, tool name (a refused call's is the model's to choose),
// session, arguments and the tool's error and cause are written into the
// log line. zap escapes the C0 controls (a newline cannot start a line of
// its own) but writes C1 controls raw, in its JSON and console encoders
// alike: a tool's error holding U+009B "1A" U+009B "2K" makes a terminal
// that runs C1 controls from UTF-8 (GNOME Terminal's VTE, screen, Mosh)
// move up and erase the line before it as the log is tailed, and U+0085
// starts a screen line that passes for a line of its own, with fake
// fields. The extension writes such characters visibly, as \u009b.
func TestAttackLogLinesHoldNoTerminalControls(t *testing.T) {
	hide := "\u009b1A\u009b2K\u009b1A\u009b2K"
	fake := "x\u0085{\"level\":\"info\",\"msg\":\"tool call\",\"tool\":\"deploy\",\"status\":\"succeeded\"}\u007f\u202eevil\u202c\u2066x\u2069\u0080\u009c\u009d0;title\u009f"
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
			args, err := json.Marshal(map[string]string{"text": hide + fake})
			require.NoError(t, err)
			ctx := tool.WithPrincipal(context.Background(), tool.Principal{ID: "bob" + hide, Tenant: "acme" + hide})
			_, _ = ex.Execute(ctx, tool.Call{ID: "c1" + hide, Name: "say", Args: args, Session: "s" + fake, Agent: "a" + hide})
			_, _ = ex.Execute(ctx, tool.Call{ID: "c2", Name: "nope" + hide, Args: args})
			out := buf.String()
			assert.Empty(t, rawControls(out), "characters the log holds raw, which a terminal acts on")
			assert.Equal(t, 2, strings.Count(out, "\n"), "one line a call")
			assert.Contains(t, out, `u009b1A`, "the character is written visibly")
			if enc.name == "json" {
				var line struct{ Args struct{ Text string } }
				require.NoError(t, json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &line))
				assert.Equal(t, hide+fake, line.Args.Text, "the arguments decode to what the call said")
			}
		})
	}
}

// rawControls lists the invisibleControls s holds, each once.
func rawControls(s string) []string {
	var found []string
	for _, r := range s {
		if slices.Contains(invisibleControls, r) && !slices.Contains(found, fmt.Sprintf("%U", r)) {
			found = append(found, fmt.Sprintf("%U", r))
		}
	}
	return found
}
