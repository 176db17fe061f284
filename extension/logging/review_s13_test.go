package logging_test

import (
	"bytes"
	"context"
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

// The executor holds an error's message to WithMaxOutputBytes (6054792's
// session), but a Go func's plain error, or an MCP server's, is both the
// message and the cause (tool.Error.Err), and a cut message no longer
// equals its cause: the extension then logged the cause too, whole. A
// tool (or a remote server) failing with 8 MiB of text put 8 MiB in one
// log line past a 64 KiB cap, twice the redaction work, where before the
// cap it logged the text once. The cause is held to a bound of its own.
func TestReviewS13CauseOfACutMessageIsBounded(t *testing.T) {
	var buf bytes.Buffer
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
	big := "start " + strings.Repeat("x", 8<<20) + " end"
	reg := registry.New()
	reg.MustRegister(tool.Func("fail", "Fail", func(context.Context, struct{}) (string, error) {
		return "", errors.New(big)
	}))
	ex := executor.MustNew(reg, executor.WithMaxOutputBytes(64<<10), executor.WithExtensions(logging.New(zap.New(core))))
	res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "fail", Args: []byte(`{}`)})
	require.NotNil(t, res)
	require.NotNil(t, res.Error)
	require.LessOrEqual(t, len(res.Error.Message), 64<<10+256, "the executor cut the message")
	line := buf.String()
	assert.Less(t, len(line), 512<<10, "the log line holds the 8 MiB cause whole")
	assert.Contains(t, line, "start ", "the cause's head is logged")
	assert.Contains(t, line, " end", "the cause's tail is logged")
}
