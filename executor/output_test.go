package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// rawOutput is a backend with no output schema that returns out as its
// structured output.
type rawOutput struct{ out string }

func (r rawOutput) Spec() tool.Spec {
	return tool.Spec{Name: "raw", Description: "Returns raw output", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (r rawOutput) Run(context.Context, tool.Call) (*tool.Result, error) {
	return &tool.Result{Output: json.RawMessage(r.out)}, nil
}

// Output without a schema is still JSON: a backend that returns anything
// else fails with invalid_output instead of succeeding.
func TestOutputWithoutSchemaMustBeJSON(t *testing.T) {
	for out, ok := range map[string]bool{`{"a":1}`: true, `[1,2]`: true, `"s"`: true, `{broken`: false, `{"a":1} trailing`: false} {
		reg := registry.New()
		reg.MustRegister(rawOutput{out})
		res, err := executor.MustNew(reg).Execute(context.Background(), tool.Call{ID: "c", Name: "raw", Args: json.RawMessage(`{}`)})
		if ok {
			require.NoError(t, err, out)
			assert.JSONEq(t, out, string(res.Output))
			continue
		}
		require.ErrorIs(t, err, tool.ErrInvalidOutput, out)
		assert.Equal(t, tool.StatusFailed, res.Status)
		assert.Contains(t, res.Error.Message, "not JSON")
	}
}

// One output cap for every backend: text keeps its head and tail around a
// marker, structured output over the cap fails (it cannot be cut and stay
// JSON), and the cap is the executor's, so an MCP server or a model never
// receives more.
func TestOutputIsCapped(t *testing.T) {
	big := strings.Repeat("a", 3<<20) + "THE END"
	reg := registry.New()
	reg.MustRegister(
		tool.Func("text", "Big text", func(context.Context, struct{}) (string, error) { return "HEAD" + big, nil }, tool.WithRisk(tool.RiskLow)),
		tool.Func("object", "Big object", func(context.Context, struct{}) (map[string]string, error) {
			return map[string]string{"blob": big}, nil
		}, tool.WithRisk(tool.RiskLow)),
	)
	ex := executor.MustNew(reg, executor.WithMaxOutputBytes(64<<10))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "t", Name: "text", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	txt := res.Text()
	assert.LessOrEqual(t, len(txt), 64<<10+64)
	assert.True(t, strings.HasPrefix(txt, "HEAD"), "the head is kept")
	assert.True(t, strings.HasSuffix(txt, "THE END"), "the tail is kept")
	assert.Contains(t, txt, "bytes cut")
	assert.Equal(t, true, res.Metadata["truncated"])

	res, err = ex.Execute(context.Background(), tool.Call{ID: "o", Name: "object", Args: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, tool.ErrInvalidOutput)
	assert.Empty(t, res.Output)
	assert.Contains(t, res.Error.Message, "over the 65536-byte cap")
}

// Text that is not UTF-8 (a tool that printed a binary file) is cut at the
// cap like any other: a run of stray continuation bytes is bytes, not a
// character to back out of, so the head and tail keep their share of the
// cap. The cut used to back up over all of them and kept only "HEAD" and
// "THE END".
func TestOutputOfStrayBytesKeepsItsShareOfTheCap(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("binary", "Binary text", func(context.Context, struct{}) (string, error) {
		return "HEAD" + strings.Repeat("\x80", 3<<20) + "THE END", nil
	}, tool.WithRisk(tool.RiskLow)))
	ex := executor.MustNew(reg, executor.WithMaxOutputBytes(64<<10))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "b", Name: "binary", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	txt := res.Text()
	assert.True(t, strings.HasPrefix(txt, "HEAD\x80\x80"), "the head is kept")
	assert.True(t, strings.HasSuffix(txt, "\x80\x80THE END"), "the tail is kept")
	assert.Greater(t, len(txt), 60<<10, "the head and tail fill the cap")
	assert.LessOrEqual(t, len(txt), 64<<10+64)
}

// A tool's error message is held to the output cap too: it reaches the
// model, the logs and the audit trail (which redacts it under its lock)
// as output does. A tool that echoed a 3 MiB input into its error sent
// all of it.
func TestErrorMessageIsCapped(t *testing.T) {
	big := strings.Repeat("a", 3<<20) + "THE END"
	reg := registry.New()
	reg.MustRegister(tool.Func("fail", "Fails at length", func(context.Context, struct{}) (string, error) {
		return "", errors.New("HEAD" + big)
	}, tool.WithRisk(tool.RiskLow)))
	ex := executor.MustNew(reg, executor.WithMaxOutputBytes(64<<10))
	res, err := ex.Execute(context.Background(), tool.Call{ID: "f", Name: "fail", Args: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, tool.ErrToolError)
	msg := res.Error.Message
	assert.LessOrEqual(t, len(msg), 64<<10+64)
	assert.True(t, strings.HasPrefix(msg, "HEAD"), "the head is kept")
	assert.True(t, strings.HasSuffix(msg, "THE END"), "the tail is kept")
	assert.Contains(t, msg, "bytes cut")
	assert.Equal(t, true, res.Metadata["truncated"])
}

func BenchmarkBigOutputCapped(b *testing.B) {
	big := strings.Repeat("x", 16<<20)
	reg := registry.New()
	reg.MustRegister(tool.Func("text", "Big text", func(context.Context, struct{}) (string, error) { return big, nil }, tool.WithRisk(tool.RiskLow)))
	ex := executor.MustNew(reg)
	b.ReportAllocs()
	for b.Loop() {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "t", Name: "text", Args: json.RawMessage(`{}`)})
		if len(res.Text()) > executor.DefaultMaxOutputBytes+64 {
			b.Fatal("not capped")
		}
	}
}
