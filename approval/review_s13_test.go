package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The WHATWG URL standard (browsers, Node's fetch, a Node MCP server)
// percent-decodes an http(s) URL's host and maps it as IDNA does, which
// drops a soft hyphen (U+00AD): new URL("http://%31%36%39.254.169.254/")
// and "http://169.254.169\u00ad.254/" go to 169.254.169.254, and
// "https://%65vil.example/" to evil.example. url.Parse refuses a
// percent-encoded ASCII host, and canonicalURL kept such a URL as written,
// so deny rules on the metadata service's address or on a host let them
// through.
func TestReviewS13URLHostPercentEncodedOrIgnoredChars(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("http_get(http://169.254.169.254/**)", "http_get(https://evil.example/**)"))
	eval := func(u string) Evaluation {
		args, _ := json.Marshal(map[string]string{"url": u})
		return deny.Evaluate(nil, &Request{Call: tool.Call{Name: "http_get", Args: args}, Spec: tool.Spec{Name: "http_get"}, Level: classify.Safe})
	}
	for _, u := range []string{
		"http://%31%36%39.254.169.254/latest/meta-data/",
		"http://169.254.169.%32%35%34/latest/meta-data/",
		"http://%32%38%35%32%30%33%39%31%36%36/latest/meta-data/",
		"http://169.254.169\u00ad.254/latest/meta-data/",
		"http://169.254.169.254\u200b/latest/meta-data/",
		"https://%65vil.example/x",
		"https://%45VIL.example/x",
		"https://evil\u00ad.example/x",
		"https://user@%65vil.example:443/x",
	} {
		if ev := eval(u); ev.Action != ActionRefuse {
			t.Errorf("deny rules let %q through: %+v (%q)", u, ev, canonicalURL(u))
		}
	}
	// A percent sign that decodes to no host a client connects to stays as
	// written; a plain URL is unchanged.
	assert.Equal(t, "https://docs.example/a", canonicalURL("https://docs.example/a"))
	assert.Equal(t, "https://%2Fx/a", canonicalURL("https://%2Fx/a"))
}

// A "command" argument is read as a line, or as an argv when it is a list
// (88d54ec), but a tool that takes the program and its arguments apart,
// {"command": "rm", "args": ["-rf", "build"]} (as MCP servers that run
// commands and Node's spawn(command, args) do), had the program alone as
// its subject: deny run(rm *) let it run, and allow run(git*) approved
// git with any arguments.
func TestReviewS13CommandWithItsArgumentsApart(t *testing.T) {
	runner := tool.New("run", "Run a command", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"args":{"type":"array","items":{"type":"string"}}}}`)))
	judge := func(p *Policy, args string) Evaluation {
		spec := runner.Spec()
		return p.Evaluate(runner, &Request{Call: tool.Call{Name: "run", Args: json.RawMessage(args)}, Spec: spec, Level: classify.Safe})
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("run(rm *)", "run(git push*)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("run(git status*)", "run(ls*)"))
	for _, args := range []string{
		`{"command": "rm", "args": ["-rf", "build"]}`,
		`{"command": "git", "args": ["push", "--force"]}`,
		`{"command": "git", "ARGS": ["push"]}`,
		`{"command": "git", "arguments": ["push"]}`,
		`{"command": "git", "argv": ["push"]}`,
	} {
		assert.Equal(t, ActionRefuse, judge(deny, args).Action, args)
	}
	for _, args := range []string{
		`{"command": "git", "args": ["status", ";", "rm", "-rf", "build"]}`,
		`{"command": "ls", "args": ["; rm -rf build"]}`,
		`{"command": "ls", "args": ["x", "y"], "Args": ["-la", "/etc/shadow"]}`,
	} {
		assert.NotEqual(t, ActionAllow, judge(allow, args).Action, args)
	}
	for _, args := range []string{
		`{"command": "git", "args": ["status", "--short"]}`,
		`{"command": "git status"}`,
		`{"command": "ls", "args": []}`,
	} {
		assert.Equal(t, ActionAllow, judge(allow, args).Action, args)
		assert.Equal(t, ActionAllow, judge(deny, args).Action, args)
	}
}

// nestedPathArgs reads a schema to depth 32 and keeps 256 paths; a path
// declared past either bound, or behind a local $ref (#/$defs/f, as
// hand-written and generated schemas put a list's item type), was read as
// no path at all, so deny cp(/etc/**) let it name /etc/shadow and an
// allow rule approved it. Past a bound the call's paths cannot all be
// known, so every deny and ask rule on paths holds and no allow rule
// approves; a $ref is followed.
func TestReviewS13NestedPathsPastTheBoundsOrBehindARef(t *testing.T) {
	props := map[string]any{}
	for i := range 300 {
		props[fmt.Sprintf("p%03d", i)] = map[string]any{"type": "string", sandbox.PathKeyword: true}
	}
	wide, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"path":    map[string]any{"type": "string", sandbox.PathKeyword: true},
		"options": map[string]any{"type": "object", "properties": props},
	}})
	deep := `{"type":"string","x-toolbelt-path":true}`
	deepArg := `"/etc/shadow"`
	for range 40 {
		deep = `{"type":"object","properties":{"d":` + deep + `}}`
		deepArg = `{"d":` + deepArg + `}`
	}
	deep = `{"type":"object","properties":{"path":{"type":"string","x-toolbelt-path":true},"x":` + deep + `}}`
	ref := `{"type":"object","$defs":{"f":{"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"properties":{"path":{"type":"string","x-toolbelt-path":true},"files":{"type":"array","items":{"$ref":"#/$defs/f"}}}}`
	deny := MustPolicy(ModeAllowAll, DenyRules("cp(/etc/**)"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("cp(docs/**)"))
	judge := func(p *Policy, schema, args string) Evaluation {
		spec := tool.Spec{Name: "cp", InputSchema: json.RawMessage(schema)}
		cp := tool.New("cp", "Copy", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil }, tool.WithInputSchema(spec.InputSchema))
		return p.Evaluate(cp, &Request{Call: tool.Call{Name: "cp", Args: json.RawMessage(args)}, Spec: spec, Level: classify.Safe})
	}
	var calls [][2]string
	for i := range 300 {
		calls = append(calls, [2]string{string(wide), fmt.Sprintf(`{"path":"docs/a","options":{"p%03d":"/etc/shadow"}}`, i)})
	}
	calls = append(calls,
		[2]string{deep, `{"path":"docs/a","x":` + deepArg + `}`},
		[2]string{ref, `{"path":"docs/a","files":[{"name":"/etc/shadow"}]}`})
	failed := 0
	for _, c := range calls {
		if ev := judge(deny, c[0], c[1]); ev.Action != ActionRefuse {
			failed++
			if failed <= 5 {
				t.Errorf("deny rules let %.80s run: %+v", c[1], ev)
			}
		}
		if ev := judge(allow, c[0], c[1]); ev.Action == ActionAllow {
			t.Errorf("allow rules approved %.80s", c[1])
		}
	}
	assert.Zero(t, failed, "calls the deny rule let through")
	// A $ref is followed: its path under docs/ is approved.
	assert.Equal(t, ActionAllow, judge(allow, ref, `{"path":"docs/a","files":[{"name":"docs/b"}]}`).Action)
	// A $ref that refers to itself, twice at each level, is read in
	// bounded time (a walk of every expansion would take 2^32 steps).
	loop := `{"type":"object","$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"}}}},
		"properties":{"path":{"type":"string","x-toolbelt-path":true},"n":{"$ref":"#/$defs/n"}}}`
	judge(deny, loop, `{"path":"docs/a"}`)
}
