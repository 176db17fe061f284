package approval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
)

// A misspelt setting is an error naming its line and the setting meant:
// decoded by a decoder of the caller's own, deny_dangerus would be dropped
// without a word, and dangerous calls would be approved by the allow rules.
func TestParsePolicyConfigRefusesUnknownSettings(t *testing.T) {
	_, err := approval.ParsePolicyConfig([]byte("mode: allow_all\ndeny_dangerus: true\nalways_approve: [bash]\nprompt_on_warnings: false\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `line 2: unknown setting "deny_dangerus": did you mean "deny_dangerous"?`)
	assert.Contains(t, err.Error(), `line 4: unknown setting "prompt_on_warnings": did you mean "prompt_on_warning"?`)

	_, err = approval.ParsePolicyConfig([]byte("mode: auto\nrefuse_everything: true\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown setting "refuse_everything": the settings are allow, always_approve, always_ask, ask, deny, deny_dangerous, mode, prompt_on_warning`)
}

// YAML and JSON both decode, and the settings reach the policy.
func TestParsePolicyConfig(t *testing.T) {
	for name, doc := range map[string]string{
		"yaml": "mode: allow_all\ndeny_dangerous: true\nalways_approve: [bash]\ndeny: ['shell(git push*)']\n",
		"json": `{"mode":"allow_all","deny_dangerous":true,"always_approve":["bash"],"deny":["shell(git push*)"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, err := approval.ParsePolicyConfig([]byte(doc))
			require.NoError(t, err)
			assert.Equal(t, approval.PolicyConfig{Mode: approval.ModeAllowAll, DenyDangerous: true,
				AlwaysApprove: []string{"bash"}, Deny: []string{"shell(git push*)"}}, c)
			p, err := c.Policy()
			require.NoError(t, err)
			assert.Equal(t, approval.ModeAllowAll, p.Mode())
		})
	}
}

// Values of the wrong kind and bad documents are errors that say where.
func TestParsePolicyConfigBadValues(t *testing.T) {
	for doc, want := range map[string]string{
		"mode: sometimes\n":                 "unknown mode \"sometimes\": use auto, always_ask, allow_all or deny_all",
		"mode: auto\ndeny_dangerous: maybe": "line 2",
		"":                                  "empty: give at least a mode",
		"- mode: auto\n":                    "line 1: expected a mapping",
		"mode: [auto\n":                     "policy configuration",
	} {
		_, err := approval.ParsePolicyConfig([]byte(doc))
		require.Error(t, err, doc)
		assert.Contains(t, err.Error(), want, doc)
	}
}
