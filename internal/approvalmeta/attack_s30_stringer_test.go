package approvalmeta_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
)

// verdict's String dereferences its receiver: a nil *verdict that an
// extension of the program's own put in a result's metadata panics when
// read.
type verdict struct{ s string }

func (v *verdict) String() string { return v.s }

// A decision whose String panics was let through Decision, so the audit
// extension and the agent, which read it after the tool ran, panicked: the
// chain made the panic the call's answer (a payment that went through
// answered as failed, which a model pays again). It now reads as
// Unreadable.
func TestAttackS30DecisionWhoseStringPanics(t *testing.T) {
	for _, meta := range []map[string]any{
		{approvalmeta.Key: (*verdict)(nil)},
		{approvalmeta.Key: map[string]any{"decision": (*verdict)(nil), "decided_by": "bob"}},
	} {
		var d, by string
		assert.NotPanics(t, func() { d, by = approvalmeta.Decision(meta) })
		assert.Equal(t, approvalmeta.Unreadable, d)
		if _, ok := meta[approvalmeta.Key].(map[string]any); ok {
			assert.Equal(t, "bob", by)
		}
	}
	d, _ := approvalmeta.Decision(map[string]any{approvalmeta.Key: &verdict{"approve"}})
	assert.Equal(t, "approve", d)
}
