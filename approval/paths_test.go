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
	ws, tools := fileTools(t, []string{"docs", "secrets", "src"}, func(dir string) {
		require.NoError(t, os.Symlink("../src", filepath.Join(dir, "docs", "code")))
		require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	})
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

// Every declared path argument is a subject, an omitted one counts as the
// workspace root, and a directory is judged by what lies beneath it: a
// deny or ask rule applies when its pattern could match a path inside the
// directory, an allow rule only when its pattern covers the whole
// directory. Seen failing before: search_files and list_directory without
// a path, or with ".", had no subject (or "."), so search_files(secrets/**)
// never refused them and they were auto-approved; only the first declared
// argument was matched, so a second one escaped deny rules and rode on
// allow rules.
func TestPathRulesBindDirectoriesAndEveryPathArgument(t *testing.T) {
	ws, tools := fileTools(t, []string{"docs/sub", "secrets", "src"}, func(dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("k"), 0o600))
		require.NoError(t, os.Symlink("secrets", filepath.Join(dir, "alias")))
	})
	p := MustPolicy(ModeAuto,
		DenyRules("search_files(secrets/**)", "list_directory(secrets/key)", "read_file(secrets/**)"),
		AskRules("search_files(**/*.pem)"),
		AllowRules("search_files(docs/**)", "list_directory(docs)", "list_directory(src/**)", "read_file(**)"))
	for _, tc := range []struct {
		tool, args string
		level      classify.Level
		want       Action
	}{
		{"search_files", `{"pattern":"k"}`, classify.Safe, ActionRefuse},
		{"search_files", `{"pattern":"k","path":"."}`, classify.Safe, ActionRefuse},
		{"search_files", `{"pattern":"k","path":"./"}`, classify.Safe, ActionRefuse},
		{"search_files", `{"pattern":"k","path":"alias"}`, classify.Safe, ActionRefuse},
		{"list_directory", `{}`, classify.Safe, ActionRefuse},
		{"list_directory", `{"path":"secrets"}`, classify.Safe, ActionRefuse},
		{"list_directory", `{"path":"src"}`, classify.Safe, ActionAllow},
		// The ask rule **/*.pem could match below any directory.
		{"search_files", `{"pattern":"k","path":"src"}`, classify.Safe, ActionAsk},
		// The ask rule **/*.pem may match below docs/sub: ask comes
		// before the allow rule docs/**.
		{"search_files", `{"pattern":"k","path":"docs/sub"}`, classify.Warning, ActionAsk},
		// list_directory(docs) names the directory, not what is in it.
		{"list_directory", `{"path":"docs"}`, classify.Warning, ActionAsk},
		{"list_directory", `{"path":"src"}`, classify.Warning, ActionAllow},
		// A file subject is matched as itself.
		{"read_file", `{"path":"docs/a.md"}`, classify.Warning, ActionAllow},
		{"read_file", `{"path":"alias/key"}`, classify.Safe, ActionRefuse},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			tl := tools[tc.tool]
			req := &Request{Call: tool.Call{Name: tc.tool, Args: json.RawMessage(tc.args)}, Spec: tl.Spec(), Level: tc.level}
			ev := p.Evaluate(tl, req)
			assert.Equal(t, tc.want, ev.Action, "%+v", ev)
		})
	}
	// An ask rule that cannot reach below the directory leaves it to the
	// allow rule, which covers docs/sub; and "**" covers the root.
	p2 := MustPolicy(ModeAuto, AskRules("search_files(src/**)"), AllowRules("search_files(docs/**)", "list_directory(**)"))
	req := &Request{Call: tool.Call{Name: "search_files", Args: json.RawMessage(`{"pattern":"k","path":"docs/sub"}`)}, Spec: tools["search_files"].Spec(), Level: classify.Warning}
	assert.Equal(t, ActionAllow, p2.Evaluate(tools["search_files"], req).Action)
	assert.Equal(t, "docs/sub", req.Subject)
	req = &Request{Call: tool.Call{Name: "search_files", Args: json.RawMessage(`{"pattern":"k"}`)}, Spec: tools["search_files"].Spec(), Level: classify.Warning}
	assert.Equal(t, ActionAsk, p2.Evaluate(tools["search_files"], req).Action, "docs/** does not cover the root")
	assert.Equal(t, ".", req.Subject, "an omitted path is the workspace root")
	req = &Request{Call: tool.Call{Name: "list_directory", Args: json.RawMessage(`{}`)}, Spec: tools["list_directory"].Spec(), Level: classify.Warning}
	assert.Equal(t, ActionAllow, p2.Evaluate(tools["list_directory"], req).Action, "** covers the root")

	// Every declared path argument is a subject, in any order, also each
	// element of an array: a deny or ask rule matches when one does, an
	// allow rule when all do.
	spec := tool.Spec{Name: "copy", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"src":{"type":"string","x-toolbelt-path":true},"dst":{"type":"string","x-toolbelt-path":true},` +
		`"also":{"type":"array","items":{"type":"string"},"x-toolbelt-path":true}}}`)}
	pc := MustPolicy(ModeAuto, DenyRules("copy(secrets/**)"), AllowRules("copy(docs/**)"), ResolvePathsIn(ws))
	for _, tc := range []struct {
		args string
		want Action
	}{
		{`{"src":"docs/a","dst":"docs/b","also":["docs/c"]}`, ActionAllow},
		{`{"src":"secrets/key","dst":"docs/b","also":["docs/c"]}`, ActionRefuse},
		{`{"src":"docs/a","dst":"secrets/b","also":["docs/c"]}`, ActionRefuse},
		{`{"src":"docs/a","dst":"docs/b","also":["docs/c","alias/key"]}`, ActionRefuse},
		{`{"src":"docs/a","dst":"src/b","also":["docs/c"]}`, ActionAsk},
		{`{"src":"docs/a","dst":"docs/b","also":["src/x"]}`, ActionAsk},
		{`{"src":"docs/a","dst":"../out","also":["docs/c"]}`, ActionAsk},
	} {
		req := Request{Call: tool.Call{Name: "copy", Args: json.RawMessage(tc.args)}, Spec: spec, Level: classify.Warning}
		ev := pc.Evaluate(nil, &req)
		assert.Equal(t, tc.want, ev.Action, "copy %s: %+v", tc.args, ev)
	}
}

// Without a workspace, "." and a path written with a trailing slash are the
// directories a subject is known to be, and an omitted path argument counts
// as the default its schema states, else as the root ".".
func TestPathRulesDirectoriesWithoutAWorkspace(t *testing.T) {
	p := MustPolicy(ModeAuto, DenyRules("find(secrets/**)"), AllowRules("find(docs/**)"))
	spec := func(def string) tool.Spec {
		return tool.Spec{Name: "find", InputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer","default":3},` +
			`"dir":{"type":"string","x-toolbelt-path":true` + def + `}}}`)}
	}
	for _, tc := range []struct {
		def, args string
		want      Action
		subject   string
	}{
		{"", `{"dir":"./"}`, ActionRefuse, "."},
		{"", `{"dir":"."}`, ActionRefuse, "."},
		{"", `{"dir":"src/"}`, ActionAsk, "src"},
		{"", `{"dir":"docs/"}`, ActionAllow, "docs"},
		{"", `{"dir":"docs"}`, ActionAllow, "docs"},
		{"", `{}`, ActionRefuse, "."},
		{`,"default":"."`, `{}`, ActionRefuse, "."},
		{`,"default":"docs/x"`, `{}`, ActionAllow, "docs/x"},
	} {
		req := &Request{Call: tool.Call{Name: "find", Args: json.RawMessage(tc.args)}, Spec: spec(tc.def), Level: classify.Warning}
		d, err := p.Approve(context.Background(), *req)
		require.NoError(t, err)
		ev := p.Evaluate(nil, req)
		assert.Equal(t, tc.want, ev.Action, "%s %s: %+v", tc.def, tc.args, ev)
		assert.Equal(t, tc.subject, req.Subject, "%s %s", tc.def, tc.args)
		assert.Equal(t, map[Action]Kind{ActionAllow: Approve, ActionAsk: Abstain, ActionRefuse: Deny}[tc.want], d.Kind)
	}
}

// A deny rule whose braces hold a "/" still reaches beneath a directory:
// each alternative is judged. Seen failing before: "{docs/x/*.pem,...}"
// split at "/" into a malformed segment and matched nothing below docs.
func TestPathRulesBracesReachBelowDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"docs/x", "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	search := builtin.SearchFiles(ws)
	p := MustPolicy(ModeAuto, DenyRules("search_files({docs/x/*.pem,secrets/**})"))
	for path, want := range map[string]Action{"docs": ActionRefuse, "docs/x": ActionRefuse, ".": ActionRefuse, "src": ActionAllow} {
		req := &Request{Call: tool.Call{Name: "search_files", Args: json.RawMessage(`{"pattern":"k","path":"` + path + `"}`)}, Spec: search.Spec(), Level: classify.Safe}
		assert.Equal(t, want, p.Evaluate(search, req).Action, path)
	}

	alts, ok := expandBraces(`a{b,c/{d,e}}f{g,h}\{x,y}`, 16)
	require.True(t, ok)
	assert.Equal(t, []string{`abfg\{x,y}`, `abfh\{x,y}`, `ac/dfg\{x,y}`, `ac/dfh\{x,y}`, `ac/efg\{x,y}`, `ac/efh\{x,y}`}, alts)
	_, ok = expandBraces("{a,b}{c,d}{e,f}", 7)
	assert.False(t, ok, "8 alternatives over a limit of 7")
	assert.True(t, matchBelow("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}", "zzz"), "too many alternatives: taken to reach below")
}

// An empty path argument is the workspace root to the built-in list and
// search tools (as an omitted one is), and a call without a path to a tool
// that names no workspace still reaches below the root. Seen failing
// before: {"path":""} had no subject, so search_files(secrets/**) did not
// refuse a search of the whole workspace, and without a workspace an
// omitted path escaped every deny rule.
func TestPathRulesEmptyAndOmittedPathsAreTheRoot(t *testing.T) {
	_, tools := fileTools(t, []string{"docs", "secrets"}, nil)
	p := MustPolicy(ModeAllowAll, DenyRules("search_files(secrets/**)", "list_directory(secrets/**)"))
	for _, tc := range []struct{ tool, args string }{
		{"search_files", `{"pattern":"k","path":""}`},
		{"list_directory", `{"path":""}`},
		{"list_directory", `{"path":null}`},
	} {
		tl := tools[tc.tool]
		req := &Request{Call: tool.Call{Name: tc.tool, Args: json.RawMessage(tc.args)}, Spec: tl.Spec(), Level: classify.Safe}
		ev := p.Evaluate(tl, req)
		assert.Equal(t, ActionRefuse, ev.Action, "%s %s: %+v", tc.tool, tc.args, ev)
		assert.Equal(t, ".", req.Subject, "%s %s", tc.tool, tc.args)
	}
	pa := MustPolicy(ModeAuto, AllowRules("list_directory(docs/**)"))
	req := &Request{Call: tool.Call{Name: "list_directory", Args: json.RawMessage(`{"path":""}`)}, Spec: tools["list_directory"].Spec(), Level: classify.Warning}
	assert.Equal(t, ActionAsk, pa.Evaluate(tools["list_directory"], req).Action, "docs/** does not cover the root")

	// No workspace: an omitted or empty path, or an empty list, is the
	// root, which a deny rule on a directory beneath it reaches.
	spec := tool.Spec{Name: "find", InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"dir":{"type":"string","x-toolbelt-path":true},"more":{"type":"array","items":{"type":"string"},"x-toolbelt-path":true}}}`)}
	pn := MustPolicy(ModeAllowAll, DenyRules("find(secrets/**)"))
	for _, args := range []string{`{}`, `{"dir":""}`, `{"dir":"docs","more":[]}`, `{"dir":"docs","more":[""]}`} {
		req := &Request{Call: tool.Call{Name: "find", Args: json.RawMessage(args)}, Spec: spec, Level: classify.Safe}
		ev := pn.Evaluate(nil, req)
		assert.Equal(t, ActionRefuse, ev.Action, "find %s: %+v", args, ev)
	}
	req = &Request{Call: tool.Call{Name: "find", Args: json.RawMessage(`{"dir":"docs","more":["docs/a"]}`)}, Spec: spec, Level: classify.Safe}
	assert.Equal(t, ActionAllow, pn.Evaluate(nil, req).Action, "a deny rule on secrets/** leaves docs alone")
}

// A tool that declares no path argument is judged by its path, file and
// url fields: every one present is a subject. Seen failing before: only
// the first was, so {"path":"docs/a","file":"secrets/key"} was approved
// by t(docs/**) and escaped t(secrets/**).
func TestPathRulesEveryUndeclaredPathField(t *testing.T) {
	spec := tool.Spec{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"file":{"type":"string"},"url":{"type":"string"}}}`)}
	allow := MustPolicy(ModeAuto, AllowRules("t(docs/**)"))
	deny := MustPolicy(ModeAllowAll, DenyRules("t(secrets/**)"))
	for _, tc := range []struct {
		args             string
		allowed, refused bool
	}{
		{`{"path":"docs/a","file":"secrets/key"}`, false, true},
		{`{"path":"docs/a","url":"secrets/key"}`, false, true},
		{`{"path":"docs/a","file":"docs/b"}`, true, false},
		{`{"file":"docs/b"}`, true, false},
		{`{"path":"docs/a","file":"../x"}`, false, false},
	} {
		req := &Request{Call: tool.Call{Name: "t", Args: json.RawMessage(tc.args)}, Spec: spec, Level: classify.Warning}
		assert.Equal(t, tc.allowed, allow.Evaluate(nil, req).Action == ActionAllow, "allow %s", tc.args)
		req = &Request{Call: tool.Call{Name: "t", Args: json.RawMessage(tc.args)}, Spec: spec, Level: classify.Safe}
		assert.Equal(t, tc.refused, deny.Evaluate(nil, req).Action == ActionRefuse, "deny %s", tc.args)
	}
}

// A deny rule written as a directory ("secrets", "secrets/", "./secrets/**")
// covers what is inside it: before, "read_file(secrets)" matched only the
// directory itself and a pattern starting with "./" matched nothing, so
// both left secrets/key readable. An allow rule naming a directory still
// approves only what it names.
func TestPathRulesDirectoryAndDotSlashPatterns(t *testing.T) {
	_, tools := fileTools(t, []string{"docs", "secrets/deep"}, nil)
	for _, tc := range []struct {
		rule       string
		deny       bool
		tool, path string
		want       Action
	}{
		{"read_file(secrets)", true, "read_file", "secrets/key", ActionRefuse},
		{"read_file(secrets)", true, "read_file", "secrets/deep/key", ActionRefuse},
		{"read_file(secrets/)", true, "read_file", "secrets/key", ActionRefuse},
		{"read_file(./secrets/**)", true, "read_file", "secrets/key", ActionRefuse},
		{"read_file(./secrets)", true, "read_file", "./secrets/deep/key", ActionRefuse},
		{"read_file(secrets/*)", true, "read_file", "secrets/deep/key", ActionRefuse},
		{"read_file(secrets)", true, "read_file", "docs/secrets", ActionAsk},
		{"read_file(*.md)", true, "read_file", "docs/a.txt", ActionAsk},
		{"write_file(./docs/**)", false, "write_file", "docs/a.md", ActionAllow},
		{"write_file(docs)", false, "write_file", "docs/a.md", ActionAsk},
	} {
		t.Run(tc.rule+" "+tc.path, func(t *testing.T) {
			opt := AllowRules(tc.rule)
			if tc.deny {
				opt = DenyRules(tc.rule)
			}
			p := MustPolicy(ModeAuto, opt)
			tl := tools[tc.tool]
			args, _ := json.Marshal(map[string]string{"path": tc.path, "content": "x"})
			req := &Request{Call: tool.Call{Name: tc.tool, Args: args}, Spec: tl.Spec(), Level: classify.Warning}
			assert.Equal(t, tc.want, p.Evaluate(tl, req).Action)
		})
	}
}

// fileTools is a workspace holding dirs (setup, when set, adds more before
// it opens) and the built-in file tools on it, by name.
func fileTools(t *testing.T, dirs []string, setup func(dir string)) (*sandbox.Workspace, map[string]tool.Tool) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	if setup != nil {
		setup(dir)
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	tools := map[string]tool.Tool{}
	for _, tl := range builtin.Files(ws) {
		tools[tl.Spec().Name] = tl
	}
	return ws, tools
}
