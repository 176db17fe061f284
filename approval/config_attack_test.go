package approval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
)

// A file of several YAML documents (a "---" or "..." between the settings,
// as a file pasted together from two snippets has) was read as its first
// document only: the deny_dangerous of the second was dropped without a
// word, and dangerous calls went on being approved.
func TestParsePolicyConfigRefusesASecondDocument(t *testing.T) {
	for _, doc := range []string{
		"mode: allow_all\nalways_approve: [bash]\n---\ndeny_dangerous: true\n",
		"mode: allow_all\n...\ndeny_dangerous: true\n",
		"mode: auto\n---\n",
		`{"mode":"auto"}` + "\n---\n" + `{"deny_dangerous":true}`,
	} {
		_, err := approval.ParsePolicyConfig([]byte(doc))
		require.Error(t, err, doc)
		assert.Contains(t, err.Error(), "more than one YAML document", doc)
		assert.Contains(t, err.Error(), "line ", "the error says where the second starts: %q", doc)
	}
	// A "---" before the only document is one document.
	c, err := approval.ParsePolicyConfig([]byte("---\nmode: auto\ndeny_dangerous: true\n"))
	require.NoError(t, err)
	assert.True(t, c.DenyDangerous)
}

// A setting given twice (the later would win in a decoder of one's own,
// turning deny_dangerous off), in YAML or JSON, a merge key, and a mapping
// where a list of rules goes are errors. Seen holding before this change.
func TestParsePolicyConfigRefusesDuplicatesAndNesting(t *testing.T) {
	for doc, want := range map[string]string{
		"deny_dangerous: true\nmode: auto\ndeny_dangerous: false\n": `line 3: mapping key "deny_dangerous" already defined at line 1`,
		`{"deny_dangerous": true, "deny_dangerous": false}`:         `mapping key "deny_dangerous" already defined`,
		"deny_dangerous: true\n\"deny_dangerous\": false\n":         `mapping key "deny_dangerous" already defined`,
		"base: &b {deny_dangerous: true}\n<<: *b\n":                 `unknown setting "<<"`,
		"deny:\n  shell: [rm *]\n":                                  "line 2",
		"deny: [{shell: rm}]\n":                                     "cannot unmarshal",
		"mode: auto\ndeny_dangerous: \"true\"\n":                    "line 2",
	} {
		_, err := approval.ParsePolicyConfig([]byte(doc))
		require.Error(t, err, doc)
		assert.Contains(t, err.Error(), want, doc)
	}
}

// A key written as an alias was checked by its anchor's name, not by the
// key it stands for: *deny_dangerous, an alias of the value "auto", passed
// as deny_dangerous and then decoded as the unknown key "auto", which the
// decoder drops.
func TestParsePolicyConfigChecksAliasKeysByTheirValue(t *testing.T) {
	_, err := approval.ParsePolicyConfig([]byte("mode: &deny_dangerous auto\n*deny_dangerous : true\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `line 2: unknown setting "auto"`)

	// An alias of a known key's name is that key.
	c, err := approval.ParsePolicyConfig([]byte("mode: auto\nallow: [&k deny_dangerous]\n*k : true\n"))
	require.NoError(t, err)
	assert.True(t, c.DenyDangerous)
}
