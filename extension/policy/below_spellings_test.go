package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// The paths a schema declares inside objects, lists and maps are found by
// jsonargs.Below, which reads the arguments in one pass (dfcc662). Every
// spelling the executor lets through and a backend decodes at such a path
// is judged: keys in another case (encoding/json takes them), escaped,
// the value among null items, in a list of lists or a map, after strings
// that hold brackets and quotes, beside huge numbers and deep nesting.
func TestBelowSpellingsThroughThePolicy(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	key := filepath.Join(home, ".ssh", "id")
	require.NoError(t, os.WriteFile(key, []byte(sshSecret), 0o600))
	work := filepath.Join(home, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	ok := filepath.Join(work, "a")
	require.NoError(t, os.WriteFile(ok, []byte("a"), 0o644))

	p, err := policy.Parse([]byte(`
global:
  forbidden_paths: ["**/.ssh/**"]
`))
	require.NoError(t, err)
	type options struct {
		Backup string `json:"backup,omitempty" toolbelt:"path"`
	}
	type file struct {
		Name string `json:"name" toolbelt:"path"`
	}
	type in struct {
		Options *options `json:"options,omitempty"`
		Files   []file   `json:"files,omitempty"`
	}
	catGo := tool.Func("cat_go", "Print the backup and files", func(_ context.Context, a in) (string, error) {
		var out string
		names := []string{}
		if a.Options != nil {
			names = append(names, a.Options.Backup)
		}
		for _, f := range a.Files {
			names = append(names, f.Name)
		}
		for _, n := range names {
			if n == "" {
				continue
			}
			b, err := os.ReadFile(n)
			if err != nil {
				return "", err
			}
			out += string(b)
		}
		return out, nil
	})
	// A hand-written schema, as an MCP server's: the arguments are
	// forwarded as written.
	catRaw := tool.New("cat_raw", "Print files", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		return &tool.Result{Content: []tool.Content{tool.TextContent("ran " + string(c.Args))}}, nil
	}, tool.WithInputSchema([]byte(`{"type":"object","properties":{
		"files":{"type":"array","items":{"type":["object","null"],"properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"grid":{"type":"array","items":{"type":"array","items":{"type":"string","x-toolbelt-path":true}}},
		"env":{"type":"object","additionalProperties":{"type":"string","x-toolbelt-path":true}}}}`)))
	reg := registry.New()
	require.NoError(t, reg.Register(catGo, catRaw))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	deep := strings.Repeat(`[{"a":`, 25) + `"}]\"{"` + strings.Repeat("}]", 25) // within the executor's 64 levels
	for _, tc := range []struct{ name, args string }{
		{"cat_go", `{"options":{"BACKUP":"` + key + `"}}`},
		{"cat_go", `{"OPTIONS":{"backup":"` + key + `"}}`},
		{"cat_go", `{"options":{"back\u0075p":"` + key + `"}}`},
		{"cat_go", `{"\u006fptions":{"backup":"` + key + `"}}`},
		{"cat_go", `{"options":{"backup":"` + ok + `"},"Options":{"backup":"` + key + `"}}`},
		{"cat_go", `{"Options":{"backup":"` + key + `"},"options":{"backup":"` + ok + `"}}`},
		{"cat_go", `{"files":[{"name":"` + ok + `"},{"Name":"` + key + `"}]}`},
		{"cat_go", "\t\r\n{ \"files\" :\n[ { \"name\" :\t\"" + key + "\" } ] }\n"},
		{"cat_go", `{"files":[{"name":"` + ok + `","NAME":"` + key + `"}]}`},
		{"cat_raw", `{"files":[null,{"name":"` + key + `"}]}`},
		{"cat_raw", `{"files":[{"note":"}]{\"name\":\"x\"}\\","name":"` + key + `"}]}`},
		{"cat_raw", `{"files":[{"n":1e300,"m":-0.0e-300,"name":"` + key + `"}]}`},
		// A hand-written schema takes other members: other cases reach the
		// policy, which judges them.
		{"cat_raw", `{"FILES":[{"Name":"` + key + `"}]}`},
		{"cat_raw", `{"files":[{"name":"` + ok + `","NAME":"` + key + `"}]}`},
		{"cat_raw", `{"files":[{"name":"` + ok + `"}],"Files":[{"name":"` + key + `"}]}`},
		{"cat_raw", `{"junk":` + deep + `,"files":[{"name":"` + key + `"}]}`},
		{"cat_raw", `{"files":[{"junk":` + deep + `,"name":"` + key + `"}]}`},
		{"cat_raw", `{"grid":[["` + ok + `"],[],["` + ok + `","` + key + `"]]}`},
		{"cat_raw", `{"env":{"A":"` + ok + `","B":"` + key + `"}}`},
		{"cat_raw", `{"ENV":{"b":"` + key + `"}}`},
		{"cat_raw", `{"files":[{"na\u006de":"` + key + `"}]}`},
	} {
		res := callRaw(t, ex, tc.name, tc.args)
		assert.NotContains(t, resultText(res), sshSecret, tc.args)
		if assert.NotNil(t, res.Error, "%s ran: %s", tc.args, resultText(res)) {
			// The policy's denial, or the executor's refusal before it
			// (a Go tool's schema takes no other case of a field).
			assert.Contains(t, []tool.Code{tool.CodePolicyDenied, tool.CodeInvalidArguments}, res.Error.Code, "%s: %v", tc.args, res.Error)
		}
	}
	for _, tc := range []struct{ name, args string }{
		{"cat_go", `{"options":{"backup":"` + ok + `"},"files":[{"name":"` + ok + `"}]}`},
		{"cat_raw", `{"files":[null,{"name":"` + ok + `"}],"grid":[["` + ok + `"]],"env":{"a":"` + ok + `"}}`},
	} {
		res := callRaw(t, ex, tc.name, tc.args)
		assert.Nil(t, res.Error, "%s: %v", tc.args, res.Error)
	}
}
