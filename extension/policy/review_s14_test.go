package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A workspace at the root: a path's host form is "/" + "/" + rel
// ("//etc/shadow"), which the walk of sandbox.MatchWithin cleaned on its
// way up and its literal-head shortcut (5fa614c) does not: forbidden_paths
// /etc/** let etc/shadow through.
func TestReviewS14RootWorkspaceForbiddenAbsolutePattern(t *testing.T) {
	ws, err := sandbox.OpenWorkspace("/")
	require.NoError(t, err)
	defer ws.Close()
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/**"]}`), policy.WithWorkspace(ws))
	require.NoError(t, err)
	spec := tool.Spec{Name: "custom", InputSchema: []byte(`{"type":"object","properties":{"where":{"type":"string","x-toolbelt-path":true}}}`)}
	for _, where := range []string{"etc/shadow", "/etc/shadow", "etc"} {
		rule, err := p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"`+where+`"}`))
		require.Error(t, err, where)
		assert.Equal(t, "global.forbidden_paths", rule, where)
	}
	_, err = p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"usr/share"}`))
	assert.NoError(t, err)
}
