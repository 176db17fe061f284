package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// encoding/json reads a float32 field as strconv.ParseFloat(s, 32) rounds
// it: 1e-50 to 0, 0.99999999 to 1. A Go tool whose float32 field was
// tagged exclusiveMinimum=0 or exclusiveMaximum=1 ran with 0 or 1.
func TestAttackS30ReviewFloat32KeepsItsExclusiveBounds(t *testing.T) {
	type in struct {
		Every float32 `json:"every" jsonschema:"exclusiveMinimum=0"`
		Ratio float32 `json:"ratio" jsonschema:"exclusiveMaximum=1"`
	}
	// Inclusive bounds hold after rounding: such a field still registers.
	type inclusive struct {
		Ratio float32 `json:"ratio" jsonschema:"minimum=0,maximum=1"`
	}
	_, err := tool.NewFunc("scale", "Scale", func(context.Context, inclusive) (string, error) { return "", nil })
	require.NoError(t, err)

	var got in
	fn := func(_ context.Context, a in) (string, error) { got = a; return "ok", nil }
	ft, err := tool.NewFunc("wait", "Wait", fn)
	if err != nil {
		assert.Contains(t, err.Error(), "float32")
		return
	}
	reg := registry.New()
	if err := reg.Register(ft); err != nil {
		assert.Contains(t, err.Error(), "float32")
		return
	}
	e, ok := reg.Lookup("wait")
	require.True(t, ok)
	for _, args := range []string{`{"every":1e-50,"ratio":0.5}`, `{"every":1,"ratio":0.99999999}`} {
		got = in{}
		checked, err := e.CheckArgs(json.RawMessage(args))
		if err != nil {
			continue
		}
		_, err = ft.Run(context.Background(), tool.Call{Name: "wait", Args: checked})
		require.NoError(t, err, args)
		assert.False(t, got.Every <= 0 || got.Ratio >= 1, "%s was validated against %s, and the tool ran with %+v", args, ft.Spec().InputSchema, got)
	}
}

// Review of 294eeb4: the validator reads a number exactly, a Go tool's
// float64 as strconv.ParseFloat rounds it; a number that rounds onto a
// bound, not only one that rounds to 0, passes the schema and reaches the
// tool as a value the schema forbids: 9.99999999999999999999 passed
// exclusiveMaximum 10 and the tool ran with 10.
func TestAttackS30ReviewNumberRoundedOntoABound(t *testing.T) {
	type in struct {
		Ratio float64 `json:"ratio"`
		Scale float64 `json:"scale"`
	}
	var got in
	fn := func(_ context.Context, a in) (string, error) { got = a; return "ok", nil }
	ft := tool.Func("mix", "Mix", fn, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
		"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
		"scale":{"type":"number","not":{"const":1}}
	}}`)))
	reg := registry.New()
	reg.MustRegister(ft)
	e, ok := reg.Lookup("mix")
	require.True(t, ok)
	for _, args := range []string{
		`{"ratio":0.99999999999999999999,"scale":2}`,
		`{"ratio":0.999999999999999999999999999999e0,"scale":2}`,
		`{"ratio":0.5,"scale":1.00000000000000000001}`,
		`{"ratio":0.5,"scale":100000000000000000001e-20}`,
	} {
		got = in{}
		checked, err := e.CheckArgs(json.RawMessage(args))
		if err != nil {
			assert.Contains(t, err.Error(), "float64", args)
			continue
		}
		_, err = ft.Run(context.Background(), tool.Call{Name: "mix", Args: checked})
		require.NoError(t, err, args)
		assert.False(t, got.Ratio >= 1 || got.Scale == 1, "%s was validated, and the tool ran with %+v", args, got)
	}
	// Numbers as a float64 reads them, long ones among them, pass.
	for _, args := range []string{
		`{"ratio":0.30000000000000004,"scale":2}`, `{"ratio":0.1,"scale":1.0000000000000002}`,
		`{"ratio":0.9999999999999999,"scale":1e300}`, `{"ratio":0.5,"scale":12345678901234567890}`,
		`{"ratio":0.3141592653589793238462643383279e0,"scale":3.14159265358979323846}`,
	} {
		_, err := e.CheckArgs(json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}
