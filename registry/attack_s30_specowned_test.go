package registry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The registry kept the spec a tool's Spec() returned, slices and all, so
// whoever held the tool (an approver that unwraps the tool it is shown, an
// extension reading tool.As) and wrote into the slices of its Spec()
// changed the registered spec every later call is judged, retried and
// listed by: a tag "retry-safe" written there made a payment retryable
// (helper-243's review of the approval gate). The registry now keeps a
// spec of its own (tool.Spec.Clone).
func TestAttackS30RegisteredSpecIsTheRegistrys(t *testing.T) {
	pay := tool.New("pay", "Pay an invoice", func(context.Context, tool.Call) (*tool.Result, error) {
		return &tool.Result{}, nil
	}, tool.WithInputSchema([]byte(`{"type":"object"}`)), tool.WithTags("payments"), tool.WithModes("normal"))
	reg := registry.New()
	require.NoError(t, reg.Register(pay))

	// Whoever holds the tool writes into its spec's slices.
	s := pay.Spec()
	s.Tags[0] = "retry-safe"
	s.AllowedModes[0] = "lockdown"
	s.InputSchema[1] = ' '

	e, ok := reg.Lookup("pay")
	require.True(t, ok)
	assert.Equal(t, []string{"payments"}, e.Spec.Tags, "a write into the tool's tags changed the registered spec")
	assert.Equal(t, []string{"normal"}, e.Spec.AllowedModes)
	assert.Equal(t, `{"type":"object"}`, string(e.Spec.InputSchema))
	assert.False(t, e.Spec.HasTag("retry-safe"))
}

// Clone gives every slice of the spec a backing array of its own.
func TestSpecClone(t *testing.T) {
	s := tool.Spec{Name: "x", InputSchema: []byte(`{}`), OutputSchema: []byte(`{}`), Tags: []string{"a"}, AllowedModes: []string{"m"}, Secrets: []string{"k"}}
	c := s.Clone()
	assert.Equal(t, s, c)
	c.InputSchema[0], c.OutputSchema[0], c.Tags[0], c.AllowedModes[0], c.Secrets[0] = ' ', ' ', "b", "n", "l"
	assert.Equal(t, tool.Spec{Name: "x", InputSchema: []byte(`{}`), OutputSchema: []byte(`{}`), Tags: []string{"a"}, AllowedModes: []string{"m"}, Secrets: []string{"k"}}, s)
}
