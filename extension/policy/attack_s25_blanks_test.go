package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool handler often trims its path argument (strings.TrimSpace, Python's
// strip, JavaScript's trim) before opening it, and a model's argument may
// end in a newline. The policy judged " /etc/shadow" as a relative path
// under the working directory and "/etc/shadow\n" as a file named
// "shadow\n", neither of which a pattern names, while such a tool read
// /etc/shadow. (A trailing space was already refused: namefold drops it,
// as vfat does.) Seen failing first: every case was allowed.
func TestAttackS25PathWithBlanksAroundItIsTrimmedByTheTool(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["/etc/shadow", "**/.env"]}`))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{
		"/etc/shadow\n",
		"/etc/shadow\r\n",
		"/etc/shadow\t",
		" /etc/shadow",
		"\n/etc/shadow",
		".env\n",
		"\tapp/.env",
		"\u00a0/etc/shadow",
		"\ufeff/etc/shadow", // JavaScript's trim drops a BOM too
	} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	args, err := json.Marshal(map[string]string{"path": " notes.txt\n"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}
