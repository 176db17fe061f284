package approvalmeta_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/approvalmeta"
)

type kind int

func (kind) String() string { return "deny" }

func TestDecision(t *testing.T) {
	for _, c := range []struct {
		name      string
		meta      map[string]any
		decision  string
		decidedBy string
	}{
		{"none", nil, "", ""},
		{"a string", map[string]any{"approval": "approve"}, "approve", ""},
		{"a Stringer", map[string]any{"approval": kind(1)}, "deny", ""},
		{"a map", map[string]any{"approval": map[string]any{"decision": "modify", "decided_by": "bob"}}, "modify", "bob"},
		{"a map with a Stringer", map[string]any{"approval": map[string]any{"decision": kind(1)}}, "deny", ""},
		{"modified alone", map[string]any{"modified_args": true}, "modify", ""},
		{"a decision before modified", map[string]any{"approval": "approve", "modified_args": true}, "approve", ""},
		{"something else", map[string]any{"approval": 3}, "", ""},
	} {
		d, by := approvalmeta.Decision(c.meta)
		assert.Equal(t, c.decision, d, c.name)
		assert.Equal(t, c.decidedBy, by, c.name)
	}
}
