package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool whose schema does not refuse other keys (a hand-written one, an
// MCP server's) and that decodes its arguments with encoding/json reads
// "Path", "PATH" or "ſrc" (U+017F) as its path or src field: encoding/json
// matches keys without regard to case, and keeps the last member it
// matched. The rules looked only at the key as the schema spells it, so
// {"PATH": "/etc/passwd"} passed rw(/etc/**), {"path": "docs/a", "Path":
// "/etc/passwd"} was approved by rw(docs/**) and {"Command": "rm -rf
// build"} passed run(rm *). A "command" given as an argv list (as Codex's
// shell tool takes it) was no subject at all, so run(rm *) let
// ["rm", "-rf", "build"] run. Every key a decoder may take for a subject
// field is a subject now, as the governance policy judges them, and an
// argv is its command line.
func TestAttackS13SubjectKeyInAnotherCase(t *testing.T) {
	type in struct {
		Path string `json:"path"`
		Src  string `json:"src"`
	}
	var got in
	require.NoError(t, json.Unmarshal([]byte(`{"path": "docs/a", "PATH": "/etc/passwd", "ſrc": "/etc/shadow"}`), &got))
	require.Equal(t, in{Path: "/etc/passwd", Src: "/etc/shadow"}, got, "encoding/json takes another case of the key")

	declared := tool.New("rw", "Read or write a file", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
			"path":{"type":"string","x-toolbelt-path":true},
			"src":{"type":"string","x-toolbelt-path":true}}}`)))
	undeclared := tool.New("get", "Read a file or a URL", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string"}}}`)))
	runner := tool.New("run", "Run a command", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"command":{}}}`)))
	judge := func(p *Policy, tl tool.Tool, args string) Evaluation {
		spec := tl.Spec()
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: spec.Name, Args: json.RawMessage(args)}, Spec: spec, Level: classify.Safe})
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("rw(/etc/**)", "get(/etc/**)", "get(https://evil.example/**)", "run(rm *)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("rw(docs/**)", "get(docs/**)", "get(https://docs.example/**)", "run(git status*)"))
	for _, tc := range []struct {
		tl   tool.Tool
		args string
	}{
		{declared, `{"PATH": "/etc/passwd"}`},
		{declared, `{"path": "docs/a", "Path": "/etc/passwd"}`},
		{declared, `{"path": "docs/a", "src": "docs/b", "ſrc": "/etc/shadow"}`},
		{declared, `{"path": "docs/a", "P\u0061TH": "/etc/passwd"}`},
		{undeclared, `{"Path": "/etc/passwd"}`},
		{undeclared, `{"path": "docs/a", "PATH": "/etc/passwd"}`},
		{undeclared, `{"URL": "https://evil.example/x"}`},
		{undeclared, `{"url": "https://docs.example/a", "Url": "https://evil.example/x"}`},
		{runner, `{"Command": "rm -rf build"}`},
		{runner, `{"command": "git status", "COMMAND": "rm -rf build"}`},
		{runner, `{"command": ["rm", "-rf", "build"]}`},
		{runner, `{"command": ["git", "status", "; rm -rf build"]}`},
	} {
		if ev := judge(deny, tc.tl, tc.args); ev.Action != ActionRefuse && tc.args != `{"command": ["git", "status", "; rm -rf build"]}` {
			t.Errorf("deny rules let %s run: %+v", tc.args, ev)
		}
		if ev := judge(allow, tc.tl, tc.args); ev.Action == ActionAllow {
			t.Errorf("allow rules approved %s: %+v", tc.args, ev)
		}
	}
	// Harmless twins: the key as spelled, another case of a key whose
	// value is one the rules allow, an argv the allow rule names.
	for _, tc := range []struct {
		tl   tool.Tool
		args string
	}{
		{declared, `{"path": "docs/a", "src": "docs/b"}`},
		{declared, `{"Path": "docs/a", "SRC": "docs/b"}`},
		{undeclared, `{"PATH": "docs/a"}`},
		{undeclared, `{"url": "https://docs.example/a", "Url": "https://docs.example/a"}`},
		{runner, `{"Command": "git status -s"}`},
		{runner, `{"command": ["git", "status", "-s"]}`},
	} {
		assert.Equal(t, ActionAllow, judge(allow, tc.tl, tc.args).Action, tc.args)
		assert.Equal(t, ActionAllow, judge(deny, tc.tl, tc.args).Action, tc.args)
	}
	subject, ok := SubjectOf(runner, json.RawMessage(`{"command": ["git", "commit", "-m", "it's done"]}`))
	assert.True(t, ok)
	assert.Equal(t, `git commit -m 'it'\''s done'`, subject, "an argv is shown as a shell reads it back")
}

// A tool that declares no path argument has its subjects found by name,
// and the rules knew only path, file and url, while the governance policy
// takes dir, src, dst, target and the like as paths too
// (policy.DefaultPathFields): allow copy(docs/**) approved {"path":
// "docs/a", "dst": "/etc/cron.d/job"} unasked, and deny copy(/etc/**) let
// {"src": "/etc/shadow", "dst": "out"} run.
func TestAttackS13UndeclaredPathUnderAnotherName(t *testing.T) {
	cp := tool.New("copy", "Copy a file", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
			"path":{"type":"string"},"src":{"type":"string"},"dst":{"type":"string"},"dir":{"type":"string"},
			"target":{"type":"string"},"filepath":{"type":"string"},"directory":{"type":"string"}}}`)))
	judge := func(p *Policy, args string) Action {
		return p.Evaluate(cp, &Request{Call: tool.Call{Name: "copy", Args: json.RawMessage(args)}, Spec: cp.Spec(), Level: classify.Safe}).Action
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("copy(/etc/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("copy(docs/**)"))
	for _, args := range []string{
		`{"path": "docs/a", "dst": "/etc/cron.d/job"}`,
		`{"src": "/etc/shadow", "dst": "docs/out"}`,
		`{"path": "docs/a", "target": "/etc/passwd"}`,
		`{"filepath": "/etc/shadow"}`,
		`{"dir": "/etc", "path": "docs/a"}`,
		`{"directory": "/etc/ssh", "path": "docs/a"}`,
	} {
		assert.Equal(t, ActionRefuse, judge(deny, args), "deny: %s", args)
		assert.NotEqual(t, ActionAllow, judge(allow, args), "allow: %s", args)
	}
	for _, args := range []string{`{"src": "docs/a", "dst": "docs/b"}`, `{"path": "docs/a"}`} {
		assert.Equal(t, ActionAllow, judge(allow, args), args)
		assert.Equal(t, ActionAllow, judge(deny, args), args)
	}
}

// renamedTool is a tool under another name over a tool it runs (a tool
// file's go tool over a Loader.Funcs entry is one), exposed with Unwrap.
type renamedTool struct {
	tool.Tool
	name string
}

func (r *renamedTool) Spec() tool.Spec {
	s := r.Tool.Spec()
	s.Name = r.name
	return s
}

func (r *renamedTool) Unwrap() tool.Tool { return r.Tool }

// Deny and ask rules held only for calls under the name they give: the
// same write_file registered again as "save" wrote past deny
// write_file(secrets/**) and was not asked about by ask write_file. They
// hold now for a tool that runs the tool they name; allow rules still
// approve only the name they give.
func TestAttackS13RulesHoldUnderAnotherName(t *testing.T) {
	type writeArgs struct {
		Path    string `json:"path" toolbelt:"path"`
		Content string `json:"content"`
	}
	write := tool.Func("write_file", "Write a file", func(context.Context, writeArgs) (string, error) { return "", nil })
	save := &renamedTool{Tool: write, name: "save"}
	judge := func(p *Policy, path string) Evaluation {
		args, _ := json.Marshal(map[string]string{"path": path, "content": "x"})
		spec := save.Spec()
		return p.Evaluate(save, &Request{Call: tool.Call{Name: "save", Args: args}, Spec: spec, Level: classify.Safe})
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("write_file(secrets/**)"))
	ask := MustPolicy(ModeAllowAll, AskRules("write_*"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("write_file(docs/**)"))
	assert.Equal(t, ActionRefuse, judge(deny, "secrets/key").Action)
	assert.Equal(t, ActionAsk, judge(ask, "docs/a").Action)
	assert.Equal(t, ActionAllow, judge(deny, "docs/a").Action, "a path the deny rule does not name runs")
	assert.Equal(t, ActionAsk, judge(allow, "docs/a").Action, "an allow rule approves only the name it gives")
}

// A tool without a workspace that expands a leading ~ or environment
// variables in its path (the MCP filesystem server expands "~/", a shell
// tool's or a Go tool's os.ExpandEnv the rest) reads HOME/.ssh/id for
// "~/.ssh/id" and "$HOME/.ssh/id". The rules took the path as written, a
// relative one under the working directory, so deny read_any(HOME/.ssh/**)
// let each run.
func TestAttackS13HomeAndVariablesInAPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KEYDIR", home+"/.ssh")
	type readArgs struct {
		Path string `json:"path" toolbelt:"path"`
	}
	tl := tool.Func("read_any", "Read a file", func(context.Context, readArgs) (string, error) { return "", nil })
	judge := func(p *Policy, path string) Evaluation {
		args, _ := json.Marshal(map[string]string{"path": path})
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe})
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("read_any("+home+"/.ssh/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("read_any(notes/**)"))
	for _, path := range []string{"~/.ssh/id", "$HOME/.ssh/id", "${HOME}/.ssh/id", "$KEYDIR/id", "~/notes/../.ssh/id"} {
		if ev := judge(deny, path); ev.Action != ActionRefuse {
			t.Errorf("deny rule let %q run: %+v", path, ev)
		}
	}
	// Twins: a path without them, and a ~ that does not begin the path.
	for _, path := range []string{"notes/a", "notes/a~b", "notes/~/a"} {
		assert.Equal(t, ActionAllow, judge(deny, path).Action, path)
		assert.Equal(t, ActionAllow, judge(allow, path).Action, path)
	}
	for _, path := range []string{"~/notes/a", "$HOME/notes/a"} {
		assert.NotEqual(t, ActionAllow, judge(allow, path).Action, "%s is HOME/notes/a, not notes/a under the working directory", path)
	}
}

// A path tagged `toolbelt:"path"` in a nested struct is declared in the
// schema (x-toolbelt-path under the object's properties), and a
// hand-written schema may mark one in a list's objects, but the rules read
// only the root's properties: deny cp(/etc/**) let options.backup
// "/etc/shadow" run, and allow cp(docs/**) approved it unasked.
func TestAttackS13NestedDeclaredPath(t *testing.T) {
	type options struct {
		Backup string `json:"backup,omitempty" toolbelt:"path"`
	}
	type in struct {
		Path    string   `json:"path" toolbelt:"path"`
		Options *options `json:"options,omitempty"`
	}
	cp := tool.Func("cp", "Copy a file", func(context.Context, in) (string, error) { return "", nil })
	many := tool.New("cat_many", "Print files", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"files":{"type":"array","items":{
			"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}}}}`)))
	judge := func(p *Policy, tl tool.Tool, args string) Evaluation {
		spec := tl.Spec()
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: spec.Name, Args: json.RawMessage(args)}, Spec: spec, Level: classify.Safe})
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("cp(/etc/**)", "cat_many(/etc/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("cp(docs/**)", "cat_many(docs/**)"))
	for _, tc := range []struct {
		tl   tool.Tool
		args string
	}{
		{cp, `{"path": "docs/a", "options": {"backup": "/etc/shadow"}}`},
		{cp, `{"path": "docs/a", "options": {"Backup": "/etc/shadow"}}`},
		{many, `{"files": [{"name": "docs/a"}, {"name": "/etc/shadow"}]}`},
	} {
		if ev := judge(deny, tc.tl, tc.args); ev.Action != ActionRefuse {
			t.Errorf("deny rules let %s run: %+v", tc.args, ev)
		}
		if ev := judge(allow, tc.tl, tc.args); ev.Action == ActionAllow {
			t.Errorf("allow rules approved %s: %+v", tc.args, ev)
		}
	}
	for _, tc := range []struct {
		tl   tool.Tool
		args string
	}{
		{cp, `{"path": "docs/a", "options": {"backup": "docs/a.bak"}}`},
		{cp, `{"path": "docs/a"}`},
		{many, `{"files": [{"name": "docs/a"}, {"name": "docs/b"}]}`},
	} {
		assert.Equal(t, ActionAllow, judge(allow, tc.tl, tc.args).Action, tc.args)
		assert.Equal(t, ActionAllow, judge(deny, tc.tl, tc.args).Action, tc.args)
	}
}
