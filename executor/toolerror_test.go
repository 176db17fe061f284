package executor_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A plain error from a Go func: the model reads its message; the Go type of
// its cause goes to the result's metadata, which the model is not sent.
func TestToolErrorInternalsGoToMetadata(t *testing.T) {
	type in struct {
		Path string `json:"path"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("open_report", "Open a report", func(_ context.Context, a in) (string, error) {
		_, err := os.Open(a.Path)
		return "", fmt.Errorf("opening the report: %w", err)
	}))
	ex := executor.MustNew(reg)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "open_report", Args: []byte(`{"path":"/nonexistent/report.txt"}`)})
	require.Error(t, err)
	assert.Equal(t, tool.CodeToolError, res.Error.Code)
	assert.Equal(t, "*fs.PathError", res.Metadata[tool.MetaErrorType])
	text := wire.Text(res)
	assert.Contains(t, text, "opening the report: open /nonexistent/report.txt: no such file or directory")
	assert.NotContains(t, text, "PathError", "the model is not sent the internals")
}
