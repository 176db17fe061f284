package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A path outside the base directory has no part below it, so no relative
// pattern matches it. With a relative base directory ("ws"), the first
// version matched "../docs/a.md" (docs/a.md) as if it were
// ws/docs/a.md: allowed_paths ["docs/**"] approved it; a relative "**"
// approved any absolute path. A base directory written with Windows
// separators ("C:\\ws") was joined as written but compared cleaned, so
// forbidden_paths ["secrets/**"] let "secrets/key" through.
func TestWithBaseDirOutsideHasNoRelativeName(t *testing.T) {
	spec := tool.Spec{Name: "custom", InputSchema: []byte(`{"type":"object","properties":{"where":{"type":"string","x-toolbelt-path":true}}}`)}
	eval := func(p *policy.Policy, where string) (string, error) {
		return p.Evaluate(tool.ModeNormal, &spec, []byte(`{"where":"`+where+`"}`))
	}
	for _, base := range []string{"ws", "./ws/", "srv/ws", "/srv/ws"} {
		p, err := policy.Parse([]byte(`global: {allowed_paths: ["docs/**"]}`), policy.WithBaseDir(base))
		require.NoError(t, err)
		for _, where := range []string{"../docs/a.md", "../ws2/docs/a.md", "/docs/a.md"} {
			rule, err := eval(p, where)
			assert.Error(t, err, "base %q, %q", base, where)
			assert.Equal(t, "global.allowed_paths", rule, "base %q, %q", base, where)
		}
		for _, where := range []string{"docs/a.md", "../ws/docs/a.md", "./docs/x/../a.md"} {
			_, err := eval(p, where)
			assert.NoError(t, err, "base %q, %q", base, where)
		}
		all, err := policy.Parse([]byte(`global: {allowed_paths: ["**"]}`), policy.WithBaseDir(base))
		require.NoError(t, err)
		rule, err := eval(all, "/etc/passwd")
		assert.Error(t, err, "base %q: ** approved /etc/passwd", base)
		assert.Equal(t, "global.allowed_paths", rule)
		_, err = eval(all, "src/a.go")
		assert.NoError(t, err, base)
	}
	for _, base := range []string{`C:\ws`, `C:\ws\`, `/srv\ws`} {
		p, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**"]}`), policy.WithBaseDir(base))
		require.NoError(t, err)
		for _, where := range []string{"secrets/key", `secrets\\key`, "./secrets/key"} {
			rule, err := eval(p, where)
			assert.Error(t, err, "base %q, %q", base, where)
			assert.Equal(t, "global.forbidden_paths", rule, "base %q, %q", base, where)
		}
	}
}
