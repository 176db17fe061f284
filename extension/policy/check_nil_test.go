package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
)

// Check with a nil registry (nothing registered yet, a forgotten
// argument) panicked; it has nothing to compare and reports nothing.
func TestCheckWithANilRegistryDoesNotPanic(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"secrets/**\"]\n"))
	require.NoError(t, err)
	assert.NotPanics(t, func() { assert.Empty(t, p.Check(nil)) })
}
