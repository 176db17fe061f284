package extension_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/extension"
)

// looped is a wrapper whose Unwrap gives itself back (a slip in a user's
// wrapper: return w instead of w.inner).
type looped struct{ extension.Hooks }

func (l *looped) Unwrap() extension.Extension { return l }

// As looked through Unwrap without end, so executor.New, which asks As
// for each extension's checks, never returned for an extension whose
// Unwrap leads back to itself. It now gives up, as tool.As does for tools.
func TestAttackS28ReviewAsEndsOnAnUnwrapCycle(t *testing.T) {
	l := &looped{extension.Hooks{ExtName: "looped"}}
	_, ok := extension.As[extension.Checker](extension.WithPriority(l, 10))
	assert.False(t, ok, "a cycle of wrappers holds no Checker")
	got, ok := extension.As[*looped](l)
	assert.True(t, ok)
	assert.Same(t, l, got)
}
