package executor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type nothing struct{}

// TestPlainCallIsNotTracked: with no subscriber, no job and no declared
// resource, a call gets no state, and admitting it allocates nothing.
func TestPlainCallIsNotTracked(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("noop", "", func(context.Context, nothing) (string, error) { return "", nil }))
	e := New(reg)
	entry, ok := reg.Lookup("noop")
	require.True(t, ok)
	call := tool.Call{ID: "c", Name: "noop"}
	assert.Nil(t, e.admit(&call, entry, nil))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _ = e.admit(&call, entry, nil) }))
	assert.Nil(t, stateFrom(context.Background()))

	_, stop := e.Subscribe(EventFilter{})
	assert.NotNil(t, e.admit(&call, entry, nil), "a subscriber makes calls tracked")
	stop()
	assert.Nil(t, e.admit(&call, entry, nil), "and stops when it leaves")
}
