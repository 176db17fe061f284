package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s30Args are the arguments of TestAttackS30CaseTwinKeysAreValidated's tool.
type s30Args struct {
	Dir   string `json:"dir"`
	Src   string `json:"src"`
	Kind  string `json:"kind"`
	Sort  string `json:"sort"`
	Count int    `json:"count"`
	Opts  struct {
		Mode string `json:"mode"`
	} `json:"opts"`
	Items []struct {
		Name string `json:"name"`
	} `json:"items"`
}

type s30Common struct {
	Path string `json:"path"`
	Mode string `json:"mode" jsonschema:"enum=safe"`
}

// s30Scoped overrides the embedded Path with a stricter one.
type s30Scoped struct {
	Path string `json:"path" jsonschema:"pattern=^[a-z]+$"`
	s30Common
}

// encoding/json fills the shallower of two fields with one JSON name (here
// s30Scoped.Path, over the embedded s30Common.Path), while the reflected
// schema showed the rules of the one reflected last: the embedded field's,
// without the pattern. A Go tool whose author narrowed path to ^[a-z]+$
// ran with "/etc".
func TestAttackS30ShadowedFieldKeepsItsRules(t *testing.T) {
	var got s30Scoped
	fn := func(_ context.Context, in s30Scoped) (string, error) { got = in; return "ok", nil }
	ft, err := tool.NewFunc("scoped", "Read in a scope", fn)
	if err != nil {
		assert.Contains(t, err.Error(), `JSON name "path"`)
		return
	}
	reg := registry.New()
	if err := reg.Register(ft); err != nil {
		assert.Contains(t, err.Error(), `JSON name "path"`)
		return
	}
	e, ok := reg.Lookup("scoped")
	require.True(t, ok)
	checked, err := e.CheckArgs(json.RawMessage(`{"path":"/etc","mode":"safe"}`))
	if err != nil {
		return // the schema holds the pattern
	}
	_, err = ft.Run(context.Background(), tool.Call{Name: "scoped", Args: checked})
	require.NoError(t, err)
	assert.NotEqual(t, "/etc", got.Path, "validated against %s, the tool ran with %+v", ft.Spec().InputSchema, got)
}

// With the json option string, encoding/json reads a number field from a
// JSON string ("1000"); invopop writes the field as {"type":"string"} and
// drops its minimum and maximum, which a string does not have. A tool
// whose author capped n at 10 ran with 1000.
func TestAttackS30StringOptionKeepsItsBounds(t *testing.T) {
	type in struct {
		N int `json:"n,string" jsonschema:"minimum=1,maximum=10"`
	}
	var got in
	fn := func(_ context.Context, a in) (string, error) { got = a; return "ok", nil }
	ft, err := tool.NewFunc("rows", "Fetch rows", fn)
	if err != nil {
		assert.Contains(t, err.Error(), "field n: its json tag's string option makes it a JSON string")
		return
	}
	reg := registry.New()
	reg.MustRegister(ft)
	e, ok := reg.Lookup("rows")
	require.True(t, ok)
	for _, args := range []string{`{"n":"1000"}`, `{"n":"-5"}`, `{"n":"0"}`} {
		got = in{}
		checked, err := e.CheckArgs(json.RawMessage(args))
		if err != nil {
			continue
		}
		if _, err := ft.Run(context.Background(), tool.Call{Name: "rows", Args: checked}); err != nil {
			continue
		}
		assert.True(t, got.N >= 1 && got.N <= 10, "%s was validated against %s, and the tool ran with n=%d", args, ft.Spec().InputSchema, got.N)
	}
}

// The validator reads a number exactly, a Go tool's float64 field as
// strconv.ParseFloat does, which reads a number below float64's smallest
// (about 5e-324) as 0 without an error: "every":1e-400 passed
// exclusiveMinimum 0, and the tool ran with an interval of 0 (a loop that
// never waits, a division by zero).
func TestAttackS30NumberReadAsZeroIsRefused(t *testing.T) {
	type in struct {
		Every float64 `json:"every"`
		Ratio float64 `json:"ratio"`
	}
	var got in
	fn := func(_ context.Context, a in) (string, error) { got = a; return "ok", nil }
	ft := tool.Func("poll", "Poll a queue", fn, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
		"every":{"type":"number","exclusiveMinimum":0},
		"ratio":{"type":"number","not":{"const":0}}
	}}`)))
	reg := registry.New()
	reg.MustRegister(ft)
	e, ok := reg.Lookup("poll")
	require.True(t, ok)
	for _, args := range []string{
		`{"every":1e-400,"ratio":1}`, `{"every":5e-325,"ratio":1}`,
		`{"every":0.0000000000000000000000000000000000000000000000000000001e-300,"ratio":1}`,
		`{"every":1,"ratio":-1e-330}`,
	} {
		got = in{}
		checked, err := e.CheckArgs(json.RawMessage(args))
		if err != nil {
			assert.Contains(t, err.Error(), "float64", args)
			continue
		}
		_, err = ft.Run(context.Background(), tool.Call{Name: "poll", Args: checked})
		if err != nil {
			continue // the tool refused it itself
		}
		assert.False(t, got.Every == 0 || got.Ratio == 0, "%s was validated, and the tool ran with %+v", args, got)
	}
	// The smallest float64s, and zero where the schema allows it, pass.
	for _, args := range []string{`{"every":5e-324}`, `{"every":1e-310,"ratio":2.5e-320}`, `{"every":1}`} {
		_, err := e.CheckArgs(json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}

// encoding/json fills a struct field from a key that names it in another
// case ("DIR", "Dir", "ſrc" with U+017F for "src", "\u212Aind" with the
// Kelvin sign for "kind"), the last such key winning; a JSON Schema
// validator matches property names exactly. A hand-written schema that
// leaves additionalProperties open (tool.WithInputSchema, an MCP server's)
// then validated "dir":"ok" and took "DIR":"/etc" for an extra field it
// does not check, and the Go tool ran with /etc, which the schema's
// pattern forbids. A default made it worse: {"ſort":"x"} left "sort" out,
// CheckArgs filled "sort":"asc" and re-encoded, "ſort" sorting last.
func TestAttackS30CaseTwinKeysAreValidated(t *testing.T) {
	var got s30Args
	fn := func(_ context.Context, in s30Args) (string, error) { got = in; return "ok", nil }
	ft := tool.Func("files", "List files", fn, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
		"dir":{"type":"string","pattern":"^[a-z]+$"},
		"src":{"type":"string","pattern":"^[a-z]+$"},
		"kind":{"type":"string","enum":["file","dir"]},
		"sort":{"type":"string","enum":["asc","desc"],"default":"asc"},
		"count":{"type":"integer","maximum":10},
		"opts":{"type":"object","properties":{"mode":{"type":"string","enum":["safe"]}}},
		"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"}}}}
	}}`)))
	reg := registry.New()
	reg.MustRegister(ft)
	e, ok := reg.Lookup("files")
	require.True(t, ok)

	for _, args := range []string{
		`{"DIR":"/etc"}`,
		`{"dir":"ok","Dir":"/etc"}`,
		`{"Dir":"/etc","dir":"ok"}`,
		`{"src":"ok","ſrc":"/etc"}`,
		`{"ſrc":"/etc"}`,
		`{"kind":"file","` + "\u212A" + `ind":"; rm -rf"}`,
		`{"\u017Fort":"; rm -rf"}`,
		`{"ſort":"; rm -rf"}`,
		`{"COUNT":1000000}`,
		`{"opts":{"MODE":"unsafe"}}`,
		`{"OPTS":{"mode":"unsafe"}}`,
		`{"items":[{"name":"ok"},{"NAME":"/etc"}]}`,
	} {
		got = s30Args{}
		checked, err := e.CheckArgs(json.RawMessage(args))
		if err != nil {
			assert.Contains(t, err.Error(), "case", args)
			continue
		}
		_, err = ft.Run(context.Background(), tool.Call{Name: "files", Args: checked})
		require.NoError(t, err, args)
		bad := got.Dir == "/etc" || got.Src == "/etc" || got.Kind == "; rm -rf" || got.Sort == "; rm -rf" ||
			got.Count > 10 || got.Opts.Mode == "unsafe" || (len(got.Items) > 1 && got.Items[1].Name == "/etc")
		assert.False(t, bad, "%s was validated, and the tool ran with %+v", args, got)
	}

	// What a model sends as the schema spells it still runs.
	checked, err := e.CheckArgs(json.RawMessage(`{"dir":"ok","src":"a","kind":"file","count":3,"opts":{"mode":"safe"},"items":[{"name":"x"}],"extra":1}`))
	require.NoError(t, err)
	_, err = ft.Run(context.Background(), tool.Call{Name: "files", Args: checked})
	require.NoError(t, err)
	assert.Equal(t, "asc", got.Sort)
	assert.Equal(t, "ok", got.Dir)
}
