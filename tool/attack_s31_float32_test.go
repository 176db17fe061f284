package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type s31Ratio struct {
	R float32 `json:"r"`
}

// A Go tool taking a float32 under a hand-written input schema with an
// exclusive bound: the registry validated 0.99999999 exactly (< 1) and
// encoding/json read it into the float32 as 1, so the tool ran with the
// value the schema excludes. The reflected schema's linter refuses
// exclusive bounds on a float32; a hand-written schema must be refused
// too, as the Func's construction error.
func TestAttackS31Float32UnderAHandWrittenExclusiveBound(t *testing.T) {
	var got []float32
	ratio, err := tool.NewFunc("ratio", "A ratio below 1", func(_ context.Context, in s31Ratio) (string, error) {
		got = append(got, in.R)
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"r":{"type":"number","exclusiveMaximum":1,"exclusiveMinimum":0}},"required":["r"]}`)))
	if err == nil {
		reg := registry.New()
		require.NoError(t, reg.Register(ratio))
		e, ok := reg.Lookup("ratio")
		require.True(t, ok)
		for _, a := range []string{`{"r":0.99999999}`, `{"r":1e-50}`} {
			args, err := e.CheckArgs(json.RawMessage(a))
			if err != nil {
				continue
			}
			_, _ = ratio.Run(context.Background(), tool.Call{Name: "ratio", Args: args})
		}
		t.Fatalf("the Func was built, and ran with %v (must be strictly between 0 and 1)", got)
	}
	assert.ErrorContains(t, err, "field r: a float32 rounds")
	assert.ErrorContains(t, err, "exclusiveMaximum")

	// Inclusive bounds, and exclusive ones on a float64, are as before.
	_, err = tool.NewFunc("ratio", "A ratio", func(_ context.Context, in struct {
		R float32 `json:"r"`
		F float64 `json:"f"`
	}) (string, error) {
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"r":{"type":"number","maximum":1,"minimum":0},"f":{"exclusiveMaximum":1}}}`)))
	assert.NoError(t, err)
}
