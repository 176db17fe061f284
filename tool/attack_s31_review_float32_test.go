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

type s31ReviewArgs struct {
	R    float32   `json:"r"`
	L    []float32 `json:"l"`
	Kind string    `json:"kind"`
}

// ranWith builds a Func taking s31ReviewArgs under the hand-written
// schema raw, and when it is built, validates each of args as the
// registry does and runs the tool with those that pass; it returns what
// the tool got and the construction error.
func ranWith(t *testing.T, raw string, args ...string) ([]s31ReviewArgs, error) {
	t.Helper()
	var got []s31ReviewArgs
	f, err := tool.NewFunc("ratio", "A ratio", func(_ context.Context, in s31ReviewArgs) (string, error) {
		got = append(got, in)
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(raw)))
	if err != nil {
		return nil, err
	}
	reg := registry.New()
	require.NoError(t, reg.Register(f))
	e, ok := reg.Lookup("ratio")
	require.True(t, ok)
	for _, a := range args {
		checked, err := e.CheckArgs(json.RawMessage(a))
		if err != nil {
			continue
		}
		_, err = f.Run(context.Background(), tool.Call{Name: "ratio", Args: checked})
		require.NoError(t, err)
	}
	return got, nil
}

// d5a083d refuses exclusiveMinimum and exclusiveMaximum on a float32
// field; other spellings of a bound that rounding crosses were built, and
// the tool ran with the value they exclude: a not (minimum 0 and not 0,
// below 1 as not minimum 1), an if whose condition a rounding crosses,
// an exclusive bound under dependentSchemas, or under contains for a list.
func TestAttackS31ReviewFloat32OtherSpellingsOfAnExclusiveBound(t *testing.T) {
	for _, c := range []struct{ raw, args string }{
		{`{"type":"object","properties":{"r":{"type":"number","minimum":0,"not":{"const":0}}}}`, `{"r":1e-50}`},
		{`{"type":"object","properties":{"r":{"type":"number","not":{"enum":[0]}}}}`, `{"r":1e-50}`},
		{`{"type":"object","properties":{"r":{"type":"number","not":{"minimum":1}}}}`, `{"r":0.99999999}`},
		{`{"type":"object","properties":{"r":{"type":"number","not":{"$ref":"#/$defs/one"}}},"$defs":{"one":{"minimum":1}}}`, `{"r":0.99999999}`},
		{`{"type":"object","if":{"properties":{"r":{"minimum":1}},"required":["r"]},"then":false}`, `{"r":0.99999999}`},
		{`{"type":"object","dependentSchemas":{"r":{"properties":{"r":{"exclusiveMinimum":0}}}}}`, `{"r":1e-50}`},
		{`{"type":"object","properties":{"l":{"type":"array","contains":{"exclusiveMinimum":0}}}}`, `{"l":[1e-50]}`},
		{`{"type":"object","properties":{"r":{"$ref":"#pos"}},"$defs":{"p":{"$anchor":"pos","exclusiveMinimum":0}}}`, `{"r":1e-50}`},
		{`{"type":"object","properties":{"r":{"$dynamicRef":"#/$defs/p"}},"$defs":{"p":{"exclusiveMinimum":0}}}`, `{"r":1e-50}`},
		{`{"$id":"https://example.invalid/s","type":"object","properties":{"r":{"$ref":"p"}},"$defs":{"p":{"$id":"p","exclusiveMinimum":0}}}`, `{"r":1e-50}`},
	} {
		got, err := ranWith(t, c.raw, c.args)
		if !assert.Error(t, err, "%s: built, and ran with %+v", c.raw, got) {
			continue
		}
		assert.ErrorContains(t, err, "a float32", c.raw)
	}

	// Still built: inclusive bounds, a not or an if that judges no
	// number, an if about another field, a float64's not.
	for _, raw := range []string{
		`{"type":"object","properties":{"r":{"type":"number","minimum":0,"maximum":1}}}`,
		`{"type":"object","properties":{"r":{"not":{"type":"string"}}}}`,
		`{"type":"object","if":{"properties":{"kind":{"const":"pct"}}},"then":{"properties":{"r":{"maximum":100}}}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"minimum":0}}}}`,
		`{"type":"object","properties":{"kind":{"$ref":"#k"},"r":{"$dynamicRef":"#/$defs/p"}},"$defs":{"k":{"$anchor":"k","type":"string"},"p":{"minimum":0}}}`,
	} {
		_, err := ranWith(t, raw)
		assert.NoError(t, err, raw)
	}
	_, err := tool.NewFunc("f", "A float64", func(_ context.Context, in struct {
		F float64 `json:"f"`
	}) (string, error) {
		return "ok", nil
	}, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"f":{"not":{"minimum":1}}}}`)))
	assert.NoError(t, err)
}
