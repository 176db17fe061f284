package approval

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// fuzzSpecs are the tools FuzzEvaluate calls: a command line tool, a tool
// that declares its path argument, and one whose subjects are found by
// field name (path, file, url).
var fuzzSpecs = []tool.Spec{
	{Name: "shell"},
	{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","` + sandbox.PathKeyword + `":true}}}`)},
	{Name: "fetch"},
	{Name: "http_get"},
}

// under reports whether the cleaned path p is dir or beneath it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func cleanArg(s string) string { return path.Clean(strings.ReplaceAll(s, "\\", "/")) }

// FuzzEvaluate evaluates a policy on hostile arguments (a model's): an
// allow rule approves only what it names (git status without a shell
// operator after it; paths under docs/), a deny rule refuses what it names
// (rm; paths under secrets/), and nothing panics. The arguments are ones
// the executor lets through: one JSON object, each key once.
func FuzzEvaluate(f *testing.F) {
	p := MustPolicy(ModeAlwaysAsk,
		DenyRules("shell(rm *)", "read_file(secrets/**)", "fetch(secrets/**)", "http_get(https://api.example.com/admin/**)"),
		AllowRules("shell(git status*)", "read_file(docs/**)", "fetch(docs/**)", "http_get(https://api.example.com/docs/**)"))
	for _, a := range []string{
		`{"command":"git status -s"}`, `{"command":"git status; rm -rf ~"}`, `{"command":"git status $(rm -rf ~)"}`,
		`{"command":"git status\nrm -rf ~"}`, `{"command":"git status\u0000; x"}`, `{"command":"rm -rf /"}`, `{"command":"git statusx"}`,
		`{"command":["git status"]}`, `{"command":null}`, `{}`, `{"command":"git status \u2028 | sh"}`,
		`{"path":"docs/a.md"}`, `{"path":"docs/../secrets/k"}`, `{"path":"./docs/a"}`, `{"path":"docs\\..\\secrets\\k"}`,
		`{"path":"/docs/a"}`, `{"path":"../docs/a"}`, `{"path":"docs/"}`, `{"path":"."}`, `{"path":""}`, `{"path":null}`,
		`{"path":["docs/a","secrets/b"]}`, `{"path":"secrets"}`, `{"path":"docs/**"}`, `{"path":"docs/[a"}`, `{"path":"docs/\u0000"}`,
		`{"url":"https://api.example.com/docs/a"}`, `{"url":"https://api.example.com/docs/../admin/x"}`,
		`{"url":"https://api.example.com/docs/%2e%2e/admin/x"}`, `{"url":"https://api.example.com//admin/x"}`,
		`{"url":"https://api.example.com/./admin/x"}`, `{"url":"https://API.example.com/admin/x"}`,
		`{"url":"https://api.example.com:443/admin/x"}`, `{"url":"https://u@api.example.com/admin/x"}`,
		`{"url":"https://api.example.com@evil.example/docs/a"}`, `{"url":"https://evil.example#api.example.com/docs/a"}`,
		`{"url":"https://evil.example?api.example.com/docs/a"}`, `{"url":"https://api.example.com/docs/a#/../../admin"}`,
		`{"url":"https://api.example.com/admin%2fx"}`, `{"url":"HTTPS://api.example.com/admin/x"}`, `{"url":"https://api.example.com/docs/a?next=/admin"}`,
		`{"path":"docs/a","url":"secrets/x"}`, `{"url":"docs/../secrets/x"}`, `{"file":"docs/a","url":"docs/b"}`, `{"file":"secrets//x"}`,
	} {
		for i := range fuzzSpecs {
			f.Add(uint8(i), []byte(a))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		spec := fuzzSpecs[int(which)%len(fuzzSpecs)]
		req := &Request{Call: tool.Call{ID: "c", Name: spec.Name, Args: args}, Spec: spec, Level: classify.Safe}
		ev := p.Evaluate(nil, req)
		if ev.Action != ActionAllow && ev.Action != ActionAsk && ev.Action != ActionRefuse {
			t.Fatalf("%s %q: action %v", spec.Name, args, ev.Action)
		}
		if _, err := schema.Decode(args); err != nil || schema.UniqueKeys(args) != nil {
			return
		}
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(args, &fields)
		str := func(k string) (string, bool) {
			var s string
			return s, json.Unmarshal(fields[k], &s) == nil
		}
		switch spec.Name {
		case "shell":
			cmd, ok := str("command")
			if ev.Action == ActionAllow {
				rest, named := strings.CutPrefix(cmd, "git status")
				if !ok || !named || strings.ContainsAny(rest, ";&|<>`$()\n\r") {
					t.Fatalf("allow shell(git status*) approved %q (%s)", args, ev.Rule)
				}
			}
			if ok && strings.HasPrefix(cmd, "rm ") && ev.Action != ActionRefuse {
				t.Fatalf("deny shell(rm *) let %q through: %v (%s)", args, ev.Action, ev.Reason)
			}
		case "read_file":
			var paths []string
			if s, ok := str("path"); ok {
				paths = append(paths, s)
			} else {
				var ss []string
				_ = json.Unmarshal(fields["path"], &ss)
				paths = ss
			}
			checkPaths(t, args, ev, paths, nil)
		case "fetch":
			var paths, urls []string
			for _, k := range []string{"path", "file"} {
				if s, ok := str(k); ok {
					paths = append(paths, s)
				}
			}
			if s, ok := str("url"); ok {
				urls = append(urls, s)
			}
			if _, isCmd := str("command"); isCmd {
				return // the command is the subject: no rule here names it
			}
			checkPaths(t, args, ev, paths, urls)
		case "http_get":
			if _, isCmd := str("command"); isCmd {
				return
			}
			raw, ok := str("url")
			u, err := url.Parse(raw)
			if !ok || err != nil {
				if ev.Action == ActionAllow {
					t.Fatalf("allow http_get(https://api.example.com/docs/**) approved %q, no URL", args)
				}
				return
			}
			// Where the request goes, as a server resolves it.
			host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
			ours := strings.EqualFold(u.Scheme, "https") && host == "api.example.com" && (u.Port() == "" || u.Port() == "443")
			p := path.Clean("/" + u.Path)
			if ev.Action == ActionAllow && (!ours || !under(p, "/docs") || u.Opaque != "") {
				t.Fatalf("allow http_get(https://api.example.com/docs/**) approved %q: %s %s", args, host, p)
			}
			if ours && u.Opaque == "" && under(p, "/admin") && ev.Action != ActionRefuse {
				t.Fatalf("deny http_get(https://api.example.com/admin/**) let %q through (%s): %v", args, p, ev.Action)
			}
		}
	})
}

// checkPaths: an allow needs every path (cleaned) and url under docs, and
// one; a path under secrets is refused.
func checkPaths(t *testing.T, args []byte, ev Evaluation, paths, urls []string) {
	t.Helper()
	for _, p := range paths {
		c := cleanArg(p)
		if p != "" && under(c, "secrets") && ev.Action != ActionRefuse {
			t.Fatalf("deny (secrets/**) let %q through: %v (%s)", args, ev.Action, ev.Reason)
		}
		if ev.Action == ActionAllow && (p == "" || !under(c, "docs")) {
			t.Fatalf("allow (docs/**) approved %q: path %q (%s)", args, p, ev.Rule)
		}
	}
	for _, u := range urls {
		if ev.Action == ActionAllow && !under(u, "docs") {
			t.Fatalf("allow (docs/**) approved %q: url %q (%s)", args, u, ev.Rule)
		}
	}
	if ev.Action == ActionAllow && len(paths)+len(urls) == 0 {
		t.Fatalf("allow (docs/**) approved %q, which names no path", args)
	}
}
