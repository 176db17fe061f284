package approvalgate

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The Forgets made while an ask is in flight were kept one per session
// until no ask was in flight: with an approver that never answers (no
// timeout), every Forget of a new session grew the memory for good.
func TestAttackS30ReviewForgetsWhileAskingAreBounded(t *testing.T) {
	m := newMemory(4)
	since := m.begin()
	for i := range 1000 {
		m.forget("acme", "s"+strconv.Itoa(i))
	}
	assert.LessOrEqual(t, len(m.forgot), 4, "Forgets kept while an ask was in flight")

	spec := &tool.Spec{Name: "deploy"}
	ok := approval.Approved("ops").WithScope(approval.ScopeSessionTool)
	k := memKey{session: "s7", tenant: "acme", principal: "alice", tool: "deploy"}
	m.put(k, ok, toolID{spec: spec}, since) // forgotten since its ask began
	_, found := m.get(k, toolID{spec: spec})
	assert.False(t, found, "a decision for a session forgotten during its ask was remembered")

	later := m.begin()
	m.put(k, ok, toolID{spec: spec}, later)
	_, found = m.get(k, toolID{spec: spec})
	require.True(t, found, "a decision asked for after the Forget is remembered")
	m.end()
	m.end()
	assert.Empty(t, m.forgot)
}
