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

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/logging"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A long error message (over 64 KiB: a command's output, an MCP server's
// error) is logged as its head and tail, and was cut before it was
// redacted: a GitHub token the head's cut fell in kept "ghp_" and 29 of
// its 30 random characters (its last 6 are a checksum), which no rule
// takes for a token, and one the tail began in kept 34 characters without
// the prefix that makes it one. So did the password of the call's own
// arguments, cut to its first letters. Each part is now redacted whole
// before it is cut.
func TestAttackS26CutErrorKeepsNoPartOfASecret(t *testing.T) {
	const half = 32 << 10 // the head and tail logging keeps of a long message
	const n = 100_000
	first := "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0KkLlMm"
	last := "ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9EdCbA1"
	password := "correct-horse-battery-staple"
	for _, tc := range []struct{ name, msg string }{
		{"token at the head's cut", strings.Repeat("x", half-4-29) + " " + first + strings.Repeat("y", n)},
		{"token at the tail's start", strings.Repeat("x", n) + " " + last[:6] + last[6:] + strings.Repeat("y", half-len(last)+6)},
		{"echo at the head's cut", strings.Repeat("x", half-17) + " " + password + strings.Repeat("y", n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
			reg := registry.New()
			reg.MustRegister(tool.Func("fail", "Fail", func(context.Context, struct {
				Password string `json:"password"`
			}) (string, error) {
				return "", &tool.Error{Code: tool.CodeUnavailable, Message: tc.msg}
			}))
			ex := executor.MustNew(reg, executor.WithExtensions(logging.New(zap.New(core))))
			args, err := json.Marshal(map[string]string{"password": password})
			require.NoError(t, err)
			_, _ = ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "fail", Args: args})
			var line struct {
				Error string `json:"error"`
			}
			require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
			require.Contains(t, line.Error, "bytes cut", "the message was cut")
			assert.Less(t, len(line.Error), 2*half+8<<10, "the message is held to about 64 KiB")
			for _, part := range []string{"Aa1Bb2Cc3D", "Ts5Rq4Po3N", "horse"} {
				if i := strings.Index(line.Error, part); i >= 0 {
					t.Errorf("the log keeps %q: …%s…", part, line.Error[max(0, i-30):min(len(line.Error), i+40)])
				}
			}
		})
	}
}
