package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
)

// Approval-rule patterns on paths match the canonical workspace-relative
// path, through the tool's own workspace: before, the raw argument was
// matched, so "docs/../src.go" was auto-approved by write_file(docs/**) and
// "./secrets/key" escaped read_file(secrets/**).
func TestPathRulesMatchTheResolvedPath(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"docs", "secrets", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.Symlink("../src", filepath.Join(dir, "docs", "code")))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	tools := map[string]tool.Tool{}
	for _, tl := range builtin.Files(ws) {
		tools[tl.Spec().Name] = tl
	}
	p := MustPolicy(ModeAuto, DenyRules("read_file(secrets/**)"), AllowRules("write_file(docs/**)"))
	abs := func(rel string) string { return filepath.Join(ws.Dir(), rel) }
	tests := []struct {
		tool, path string
		want       Action
		subject    string
	}{
		{"write_file", "docs/a.md", ActionAllow, "docs/a.md"},
		{"write_file", "./docs/a.md", ActionAllow, "docs/a.md"},
		{"write_file", abs("docs/a.md"), ActionAllow, "docs/a.md"},
		{"write_file", "docs/../src.go", ActionAsk, "src.go"},
		{"write_file", "docs/code/main.go", ActionAsk, "src/main.go"},
		{"write_file", "docs/../../outside", ActionAsk, ""},
		{"read_file", "secrets/key", ActionRefuse, "secrets/key"},
		{"read_file", "./secrets/key", ActionRefuse, "secrets/key"},
		{"read_file", "alias/key", ActionRefuse, "secrets/key"},
		{"read_file", abs("secrets/key"), ActionRefuse, "secrets/key"},
		{"read_file", "src/../secrets//key", ActionRefuse, "secrets/key"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.path, func(t *testing.T) {
			tl := tools[tc.tool]
			args, _ := json.Marshal(map[string]string{"path": tc.path, "content": "x"})
			req := &Request{Call: tool.Call{Name: tc.tool, Args: args}, Spec: tl.Spec(), Level: classify.Warning}
			ev := p.Evaluate(tl, req)
			assert.Equal(t, tc.want, ev.Action, "%+v", ev)
			if tc.subject != "" {
				assert.Equal(t, tc.subject, req.Subject)
			}
		})
	}
}

// Without a workspace a path subject is still cleaned lexically, and a
// policy used as an Approver (no tool) resolves in ResolvePathsIn's
// workspace, with the spec's declared path argument.
func TestPathRulesWithoutTheToolsWorkspace(t *testing.T) {
	p := MustPolicy(ModeAuto, DenyRules("read_file(secrets/**)"), AllowRules("write_file(docs/**)"))
	for _, tc := range []struct {
		name, args string
		want       Action
	}{
		{"write_file", `{"path":"docs/../src.go"}`, ActionAsk},
		{"write_file", `{"path":"./docs/a.md"}`, ActionAllow},
		{"write_file", `{"path":"docs/../../docs/a.md"}`, ActionAsk},
		{"read_file", `{"path":"./secrets/key"}`, ActionRefuse},
		{"read_file", `{"file":"secrets//x/../key"}`, ActionRefuse},
	} {
		ev := p.Evaluate(nil, preq(tc.name, tc.args, classify.Warning))
		assert.Equal(t, tc.want, ev.Action, "%s %s: %+v", tc.name, tc.args, ev)
	}

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	p = MustPolicy(ModeAuto, DenyRules("fetch_doc(secrets/**)"), ResolvePathsIn(ws))
	spec := tool.Spec{Name: "fetch_doc", InputSchema: json.RawMessage(`{"type":"object","properties":{"doc":{"type":"string","x-toolbelt-path":true},"path":{"type":"string"}}}`)}
	req := Request{Call: tool.Call{Name: "fetch_doc", Args: json.RawMessage(`{"doc":"alias/key","path":"public"}`)}, Spec: spec, Level: classify.Warning}
	d, err := p.Approve(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind, "%+v", d)
	req.Call.Args = json.RawMessage(`{"doc":"public","path":"secrets/key"}`)
	d, err = p.Approve(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, Abstain, d.Kind, "only the declared argument is the subject: %+v", d)
}
