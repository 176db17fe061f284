package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Chromium and Firefox show a local file's text at view-source:file:///…,
// so a browser tool's navigate to view-source:file:///etc/shadow reads
// /etc/shadow. The policy judged file: URLs only, so forbidden_paths
// /etc/** let it run.
func TestAttackS14ViewSourceFileURL(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"/etc/**\"]\n"))
	require.NoError(t, err)
	spec := tool.Spec{Name: "navigate", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, args := range []string{
		`{"url": "view-source:file:///etc/shadow"}`,
		`{"url": "VIEW-SOURCE:FILE:/etc/shadow"}`,
		`{"url": " view-source:\u0066ile://localhost/etc/%73hadow"}`,
		`{"request": {"url": "view-source:file:///etc/shadow"}}`,
		`{"url": "view-source:` + strings.Repeat(" ", 40) + `file:///etc/shadow"}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.Error(t, err, args)
	}
	for _, args := range []string{
		`{"url": "view-source:https://example.com/etc/shadow"}`,
		`{"content": "view-source:file:///etc/shadow"}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}
