package executor_test

import (
	"context"
	"encoding/json"
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
		res, err := executor.New(reg).Execute(context.Background(), tool.Call{ID: "c", Name: "raw", Args: json.RawMessage(`{}`)})
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
