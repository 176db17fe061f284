package approval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// goDefinition is a wrapper as the loader's go-type definitions are: it
// embeds the tool (so only tool.Tool's methods show) and exposes it with
// Unwrap.
type goDefinition struct{ tool.Tool }

func (g goDefinition) Unwrap() tool.Tool { return g.Tool }

// pushTool names its subject itself, as an argv tool does (the command
// line its template expands to): {"remote": "origin"} is git push origin.
type pushTool struct{}

func (pushTool) Spec() tool.Spec {
	return tool.Spec{Name: "push", Description: "push",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"remote":{"type":"string"}}}`)}
}
func (pushTool) Run(_ context.Context, _ tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }
func (pushTool) Subject(args json.RawMessage) string {
	var a struct{ Remote string }
	_ = json.Unmarshal(args, &a)
	return "git push " + a.Remote
}

// fileTool resolves its paths in its own workspace, as the built-in file
// tools do.
type fileTool struct{ ws *sandbox.Workspace }

func (fileTool) Spec() tool.Spec {
	return tool.Spec{Name: "read_file", Description: "read",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","x-toolbelt-path":true}},"required":["path"]}`)}
}
func (fileTool) Run(_ context.Context, _ tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }
func (f fileTool) Workspace() *sandbox.Workspace                          { return f.ws }

// A deny rule read a wrapped tool's subject from the wrapper, which hides
// the tool's Subject and Workspace methods: behind a go-type definition,
// push(git push*) matched nothing (the wrapper has no subject: the call
// ran in allow_all), and read_file(secrets/**) did not see that "link" is
// a symlink to secrets (the path was only cleaned). The tool's own
// judgement of its subject is now found through Unwrap, as AssessorOf
// finds its Assessor.
func TestDenyRulesSeeThroughWrappers(t *testing.T) {
	p := approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules("push(git push*)"))
	for name, tl := range map[string]tool.Tool{"tool": pushTool{}, "wrapped": goDefinition{pushTool{}}} {
		req := &approval.Request{Call: tool.Call{Name: "push", Args: json.RawMessage(`{"remote":"origin"}`)}, Spec: pushTool{}.Spec()}
		ev := p.Evaluate(tl, req)
		assert.Equal(t, approval.ActionRefuse, ev.Action, "%s: %s", name, ev.Reason)
		assert.Equal(t, "git push origin", req.Subject, name)
	}

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "secrets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("k"), 0o600))
	require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "link")))
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	ft := fileTool{ws}
	p = approval.MustPolicy(approval.ModeAllowAll, approval.DenyRules("read_file(secrets/**)"))
	for name, tl := range map[string]tool.Tool{"tool": ft, "wrapped": goDefinition{ft}} {
		req := &approval.Request{Call: tool.Call{Name: "read_file", Args: json.RawMessage(`{"path":"link/key"}`)}, Spec: ft.Spec()}
		ev := p.Evaluate(tl, req)
		assert.Equal(t, approval.ActionRefuse, ev.Action, "%s: %s", name, ev.Reason)
	}
}
