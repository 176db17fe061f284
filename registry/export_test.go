package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

type Place struct {
	Name  string `json:"name" jsonschema_description:"Display name"`
	At    Point  `json:"at"`
	Notes *Point `json:"notes,omitempty"`
}

type NestedArgs struct {
	Place  Place  `json:"place"`
	Backup *Place `json:"backup,omitempty"`
	Owner  *Point `json:"owner"`
}

type Item struct {
	SKU string `json:"sku" jsonschema:"pattern=^[A-Z]{3}-[0-9]+$"`
	Qty int    `json:"qty" jsonschema:"minimum=1"`
}

type CollectionArgs struct {
	Items   []Item          `json:"items" jsonschema:"minItems=1,maxItems=20"`
	Labels  []string        `json:"labels,omitempty"`
	Matrix  [][]int         `json:"matrix,omitempty"`
	Weights map[string]int  `json:"weights,omitempty"`
	ByName  map[string]Item `json:"by_name,omitempty"`
}

type EnumArgs struct {
	Color    string `json:"color" jsonschema:"enum=red,enum=green,enum=blue"`
	Level    int    `json:"level,omitempty" jsonschema:"enum=1,enum=2,enum=3"`
	Sort     string `json:"sort,omitempty" jsonschema:"enum=asc,enum=desc,default=asc"`
	Priority string `json:"priority" jsonschema:"oneof_type=string;integer"`
}

type TimeArgs struct {
	From  time.Time     `json:"from"`
	Until *time.Time    `json:"until,omitempty"`
	Every time.Duration `json:"every,omitempty" jsonschema_description:"Nanoseconds between runs"`
	Email string        `json:"email,omitempty" jsonschema:"format=email"`
	Site  string        `json:"site,omitempty" jsonschema:"format=uri"`
}

type Audit struct {
	Actor  string `json:"actor"`
	Reason string `json:"reason,omitempty"`
}

type EmbeddedArgs struct {
	Audit
	Target string `json:"target"`
}

type AnyArgs struct {
	Name   string         `json:"name"`
	Config map[string]any `json:"config,omitempty"`
	Value  any            `json:"value,omitempty"`
}

type Summary struct {
	Total int      `json:"total"`
	Names []string `json:"names,omitempty"`
}

func noop[In, Out any](_ context.Context, _ In) (Out, error) {
	var out Out
	return out, nil
}

const recursiveSchema = `{
  "type": "object",
  "properties": {"root": {"$ref": "#/$defs/node"}},
  "required": ["root"],
  "$defs": {"node": {"type": "object", "properties": {
    "name": {"type": "string"},
    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name"]}}
}`

func trickyRegistry(t testing.TB) *registry.Registry {
	reg := registry.New()
	require.NoError(t, reg.Register(
		tool.Func("nested", "Nested structs and pointers", noop[NestedArgs, string]),
		tool.Func("collections", "Slices and maps", noop[CollectionArgs, string]),
		tool.Func("enums", "Enums of strings and numbers", noop[EnumArgs, string]),
		tool.Func("times", "Times, durations and formats", noop[TimeArgs, string]),
		tool.Func("embedded", "An embedded struct", noop[EmbeddedArgs, string]),
		tool.Func("anything", "Free-form values", noop[AnyArgs, string]),
		tool.Func("no_args", "Takes nothing", noop[struct{}, string]),
		tool.Func("summarise", "Structured output", noop[struct{}, Summary],
			tool.ReadOnly(), tool.WithAnnotations(tool.Annotations{Title: "Summarise", ReadOnly: true})),
		tool.New("tree", "A recursive raw schema", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
			tool.WithInputSchema(json.RawMessage(recursiveSchema))),
	))
	return reg
}

func TestExportGolden(t *testing.T) {
	reg := trickyRegistry(t)
	for _, f := range registry.Formats {
		t.Run(string(f), func(t *testing.T) {
			ex, err := reg.Export(f)
			require.NoError(t, err)
			body, err := json.Marshal(ex)
			require.NoError(t, err)
			var pretty bytes.Buffer
			require.NoError(t, json.Indent(&pretty, body, "", "  "))
			notes, _ := json.MarshalIndent(ex.Notes, "", "  ")
			got := pretty.String() + "\n// notes\n" + string(notes) + "\n"
			path := filepath.Join("testdata", "golden", string(f)+".json")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./registry -update to create golden files")
			assert.Equal(t, string(want), got)
		})
	}
}

func TestExportsSatisfyProviderRules(t *testing.T) {
	reg := trickyRegistry(t)
	for _, f := range registry.Formats {
		ex, err := reg.Export(f)
		require.NoError(t, err)
		require.Equal(t, len(ex.Tools), len(ex.Names))
		for i, raw := range ex.Tools {
			def := decode(raw)
			var errs []string
			switch f {
			case registry.OpenAIChat:
				errs = checkOpenAITool(def, false)
			case registry.OpenAIResponses:
				errs = checkOpenAITool(def, true)
			case registry.Anthropic:
				errs = checkAnthropicTool(def)
			case registry.Gemini:
				errs = checkGeminiDecl(def)
			case registry.MCP:
				errs = checkMCPTool(def)
			}
			assert.Empty(t, errs, "%s export of %s breaks provider rules", f, ex.Names[i])
		}
	}
}

// The rule checkers must catch what they claim to: feed them broken schemas.
func TestProviderRuleCheckersCatchViolations(t *testing.T) {
	assert.NotEmpty(t, checkOpenAIStrict(decode([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`))), "missing required/additionalProperties")
	assert.NotEmpty(t, checkOpenAIStrict(decode([]byte(`{"anyOf":[{"type":"object"}]}`))), "root anyOf")
	assert.NotEmpty(t, checkOpenAIStrict(decode([]byte(`{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","default":"x"}}}`))), "default")
	assert.NotEmpty(t, checkOpenAIStrict(decode([]byte(`{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":["string","null"],"enum":["x"]}}}`))), "nullable enum without null")
	assert.NotEmpty(t, checkGeminiDecl(decode([]byte(`{"name":"x","parameters":{"type":"object","properties":{"a":{"type":["string","null"]}}}}`))), "type array")
	assert.NotEmpty(t, checkGeminiDecl(decode([]byte(`{"name":"x","parameters":{"type":"object","properties":{"a":{"type":"object","additionalProperties":true}}}}`))), "additionalProperties")
	assert.NotEmpty(t, checkGeminiDecl(decode([]byte(`{"name":"x","parameters":{"type":"object","properties":{"a":{"type":"integer","enum":[1,2]}}}}`))), "numeric enum")
	assert.NotEmpty(t, checkGeminiDecl(decode([]byte(`{"name":"x","parameters":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}}`))), "$ref")
	assert.NotEmpty(t, checkMCPTool(decode([]byte(`{"name":"x","inputSchema":{"type":"array"},"annotations":{}}`))), "bad mcp")
	assert.NotEmpty(t, checkAnthropicTool(decode([]byte(`{"name":"bad name","input_schema":{"type":"object"}}`))), "bad anthropic")
}

func TestExportNotes(t *testing.T) {
	reg := trickyRegistry(t)
	openai, err := reg.Export(registry.OpenAIChat)
	require.NoError(t, err)
	notes := openai.NotesFor("anything")
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0].Message, "not strict")
	assert.Contains(t, notes[0].Message, "config")
	require.Len(t, openai.NotesFor("tree"), 1)
	assert.Contains(t, openai.NotesFor("tree")[0].Message, "$ref")
	assert.Empty(t, openai.NotesFor("nested"))

	def := decode(openai.Tools[indexOf(openai.Names, "anything")])
	assert.Equal(t, false, asMap(def["function"])["strict"])

	gem, err := reg.Export(registry.Gemini)
	require.NoError(t, err)
	assert.NotContains(t, gem.Names, "tree", "recursion cannot be inlined: the tool is left out")
	assert.Contains(t, gem.NotesFor("tree")[0].Message, "left out")
	assert.Contains(t, gem.Names, "anything", "optional free-form fields are dropped, not the tool")
	var msgs []string
	for _, n := range gem.NotesFor("anything") {
		msgs = append(msgs, n.Message)
	}
	assert.Contains(t, fmt.Sprint(msgs), "config")
	assert.Contains(t, fmt.Sprint(msgs), "value")

	noStrict, err := reg.Export(registry.OpenAIChat, registry.NonStrict())
	require.NoError(t, err)
	assert.Empty(t, noStrict.Notes)
	assert.Equal(t, false, asMap(decode(noStrict.Tools[0])["function"])["strict"])

	_, err = reg.Export(registry.Format("cohere"))
	assert.ErrorContains(t, err, "unknown export format")
}

func TestExportFilter(t *testing.T) {
	reg := trickyRegistry(t)
	ex, err := reg.Export(registry.Anthropic, registry.WithFilter(registry.Filter{Names: []string{"enums", "times"}}))
	require.NoError(t, err)
	assert.Equal(t, []string{"enums", "times"}, ex.Names)
	body, _ := json.Marshal(ex)
	var arr []any
	require.NoError(t, json.Unmarshal(body, &arr))
	assert.Len(t, arr, 2)
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// sample builds the arguments a model would send for schema s: every
// nullable optional field set to null (what strict mode makes a model do),
// every other field given its first acceptable value.
func sample(s map[string]any) any { return sampleIn(s, s, 0) }

func sampleIn(root, s map[string]any, depth int) any {
	if ref, ok := s["$ref"].(string); ok && depth < 3 {
		name := ref[strings.LastIndex(ref, "/")+1:]
		return sampleIn(root, asMap(asMap(root["$defs"])[name]), depth+1)
	}
	if alts := asSlice(s["anyOf"]); len(alts) > 0 {
		for _, a := range alts {
			if contains(typesOf(asMap(a)), "null") {
				return nil
			}
		}
		return sampleIn(root, asMap(alts[0]), depth)
	}
	types := typesOf(s)
	if contains(types, "null") || s["nullable"] == true {
		return nil
	}
	if e := asSlice(s["enum"]); len(e) > 0 {
		if s["type"] == "integer" {
			return e[0]
		}
		return e[0]
	}
	t := ""
	if len(types) > 0 {
		t = types[0]
	}
	switch t {
	case "object":
		out := map[string]any{}
		for k, p := range asMap(s["properties"]) {
			out[k] = sampleIn(root, asMap(p), depth)
		}
		return out
	case "array":
		if depth >= 2 {
			return []any{}
		}
		n := 1
		if v, ok := s["minItems"].(float64); ok && v > 1 {
			n = int(v)
		}
		arr := make([]any, n)
		for i := range arr {
			arr[i] = sampleIn(root, asMap(s["items"]), depth)
		}
		return arr
	case "integer", "number":
		if v, ok := s["minimum"].(float64); ok {
			return v
		}
		return 1
	case "boolean":
		return true
	case "string":
		// A model reads formats from the schema, or from the hint an export
		// leaves in the description when the provider has no such format.
		desc, _ := s["description"].(string)
		switch {
		case s["format"] == "date-time":
			return "2026-11-21T10:00:00Z"
		case s["format"] == "email" || strings.Contains(desc, "format: email"):
			return "a@example.com"
		case s["format"] == "uri" || strings.Contains(desc, "format: uri"):
			return "https://example.com/x"
		}
		if s["pattern"] != nil {
			return "ABC-1"
		}
		return "x"
	}
	return "x"
}

// Arguments produced from any exported schema must validate and decode.
func TestArgumentsFromEveryExportValidate(t *testing.T) {
	reg := trickyRegistry(t)
	ex := executor.MustNew(reg)
	for _, f := range []registry.Format{registry.OpenAIChat, registry.OpenAIResponses, registry.Gemini} {
		exp, err := reg.Export(f)
		require.NoError(t, err)
		for i, raw := range exp.Tools {
			def := decode(raw)
			var params map[string]any
			switch f {
			case registry.OpenAIChat:
				params = asMap(asMap(def["function"])["parameters"])
			case registry.OpenAIResponses:
				params = asMap(def["parameters"])
			case registry.Gemini:
				params = asMap(def["parameters"])
			}
			args, _ := json.Marshal(sample(params))
			if params == nil {
				args = []byte(`{}`)
			}
			res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: exp.Names[i], Args: args})
			assert.NoError(t, err, "%s: %s with %s", f, exp.Names[i], args)
			assert.Equal(t, tool.StatusSucceeded, res.Status)
		}
	}
}

func TestStrictNullsMeanAbsent(t *testing.T) {
	var got EnumArgs
	var gotPlace NestedArgs
	reg := registry.New()
	reg.MustRegister(
		tool.Func("enums", "The enums test tool", func(_ context.Context, in EnumArgs) (string, error) { got = in; return "ok", nil }),
		tool.Func("nested", "The nested test tool", func(_ context.Context, in NestedArgs) (string, error) { gotPlace = in; return "ok", nil }),
	)
	ex := executor.MustNew(reg)
	_, err := ex.Execute(context.Background(), tool.Call{Name: "enums", Args: json.RawMessage(`{"color":"red","level":null,"sort":null,"priority":"high"}`)})
	require.NoError(t, err)
	// Absent: level is zero; sort gets its schema default (asc), as when left out.
	assert.Equal(t, EnumArgs{Color: "red", Sort: "asc", Priority: "high"}, got)

	_, err = ex.Execute(context.Background(), tool.Call{Name: "nested", Args: json.RawMessage(`{"place":{"name":"a","at":{"x":1,"y":2},"notes":null},"backup":null,"owner":{"x":0,"y":0}}`)})
	require.NoError(t, err)
	assert.Nil(t, gotPlace.Backup)
	assert.Nil(t, gotPlace.Place.Notes)

	// A null in a required field is still an error: it is not "absent".
	res, err := ex.Execute(context.Background(), tool.Call{Name: "enums", Args: json.RawMessage(`{"color":null,"priority":"x"}`)})
	require.Error(t, err)
	assert.Equal(t, tool.CodeInvalidArguments, res.Error.Code)
	assert.Contains(t, res.Error.Message, "color")
}

func TestRegisterRefusesBadTools(t *testing.T) {
	reg := registry.New()
	good := tool.Func("ok", "The ok test tool", noop[struct{}, string])
	require.NoError(t, reg.Register(good))
	err := reg.Register(tool.Func("ok", "The ok test tool", noop[struct{}, string]))
	assert.ErrorContains(t, err, `"ok" is already registered`)

	err = reg.Register(tool.Func("bad name", "", noop[struct{}, string]))
	assert.ErrorContains(t, err, "not portable")

	err = reg.Register(tool.New("uncompilable", "The uncompilable test tool", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`))))
	assert.ErrorContains(t, err, "does not compile")

	err = reg.Register(tool.New("remote", "The remote test tool", func(context.Context, tool.Call) (*tool.Result, error) { return nil, nil },
		tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`))))
	assert.ErrorContains(t, err, "remote references are not loaded")

	err = reg.Register(tool.Func("a1", "The a1 test tool", noop[struct{}, string]), nil, tool.Func("a1", "The a1 test tool", noop[struct{}, string]))
	assert.ErrorContains(t, err, "is nil")
	assert.ErrorContains(t, err, "twice")
	assert.Equal(t, 1, reg.Len(), "a failed Register registers nothing")

	assert.Panics(t, func() { reg.MustRegister(good) })
	assert.True(t, reg.Remove("ok"))
	assert.False(t, reg.Remove("ok"))
	assert.NoError(t, reg.Register(good))
}

// The MCP export states only the hints a tool asserts: a Go func that says
// nothing is not exported as "not destructive, closed world" (MCP's
// defaults are the opposite), and a read-only tool is not destructive.
func TestMCPExportLeavesUnsetHintsOut(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("drop_table", "Drop a table", noop[struct{}, string]),
		tool.Func("lookup", "Look up a row", noop[struct{}, string], tool.ReadOnly()),
	)
	ex, err := reg.Export(registry.MCP)
	require.NoError(t, err)
	require.Len(t, ex.Tools, 2)
	type def struct {
		Annotations map[string]any `json:"annotations"`
	}
	defs := make([]def, 2)
	for i, raw := range ex.Tools {
		require.NoError(t, json.Unmarshal(raw, &defs[i]))
	}
	assert.Empty(t, defs[0].Annotations, "drop_table asserts no hint")
	assert.Equal(t, map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true}, defs[1].Annotations)
}

// A tool whose risk is not set is filtered as medium: a "low risk only"
// agent does not get it.
func TestMaxRiskFilterJudgesUnsetAsMedium(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("drop_table", "Drop a table", noop[struct{}, string]))
	low, medium := tool.RiskLow, tool.RiskMedium
	assert.Empty(t, reg.List(registry.Filter{MaxRisk: &low}))
	assert.Len(t, reg.List(registry.Filter{MaxRisk: &medium}), 1)
}

// A tool marked destructive (and not read-only) is filtered as high,
// whatever risk it sets, as the auth extension's ceilings and the approval
// extension judge it: a "low risk only" agent was offered purge_cache
// (risk low, destructive) and drop_tables (no risk, destructive) under
// "medium", tools its own auth rule then refused. Seen failing first.
func TestMaxRiskFilterJudgesDestructiveAsHigh(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("purge_cache", "Purge the cache", noop[struct{}, string], tool.WithRisk(tool.RiskLow), tool.WithAnnotations(tool.Annotations{Destructive: true})),
		tool.Func("drop_tables", "Drop the tables", noop[struct{}, string], tool.WithAnnotations(tool.Annotations{Destructive: true})),
		tool.Func("read_rows", "Read rows", noop[struct{}, string], tool.WithRisk(tool.RiskLow), tool.WithAnnotations(tool.Annotations{ReadOnly: true, Destructive: true})),
	)
	low, medium, high := tool.RiskLow, tool.RiskMedium, tool.RiskHigh
	names := func(specs []tool.Spec) []string {
		var out []string
		for _, s := range specs {
			out = append(out, s.Name)
		}
		sort.Strings(out)
		return out
	}
	assert.Equal(t, []string{"read_rows"}, names(reg.List(registry.Filter{MaxRisk: &low})), "a read-only tool's destructive hint does not count")
	assert.Equal(t, []string{"read_rows"}, names(reg.List(registry.Filter{MaxRisk: &medium})))
	assert.Equal(t, []string{"drop_tables", "purge_cache", "read_rows"}, names(reg.List(registry.Filter{MaxRisk: &high})))
}

func TestListFiltersAndSuggest(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("read_file", "The read_file test tool", noop[struct{}, string], tool.WithCategory("files"), tool.WithRisk(tool.RiskLow), tool.WithTags("fs", "read")),
		tool.Func("write_file", "The write_file test tool", noop[struct{}, string], tool.WithCategory("files"), tool.WithRisk(tool.RiskMedium), tool.WithTags("fs")),
		tool.Func("delete_file", "The delete_file test tool", noop[struct{}, string], tool.WithCategory("files"), tool.WithRisk(tool.RiskHigh), tool.WithModes(tool.ModeNormal)),
		tool.Func("git_log", "The git_log test tool", noop[struct{}, string], tool.WithCategory("git"), tool.WithRisk(tool.RiskLow)),
	)
	names := func(specs []tool.Spec) []string {
		var out []string
		for _, s := range specs {
			out = append(out, s.Name)
		}
		sort.Strings(out)
		return out
	}
	low := tool.RiskLow
	medium := tool.RiskMedium
	assert.Equal(t, []string{"delete_file", "read_file", "write_file"}, names(reg.List(registry.Filter{Category: "files"})))
	assert.Equal(t, []string{"read_file", "write_file"}, names(reg.List(registry.Filter{Tags: []string{"fs"}})))
	assert.Equal(t, []string{"read_file"}, names(reg.List(registry.Filter{Tags: []string{"fs", "read"}})))
	assert.Equal(t, []string{"git_log", "read_file"}, names(reg.List(registry.Filter{MaxRisk: &low})))
	assert.Equal(t, []string{"git_log", "read_file", "write_file"}, names(reg.List(registry.Filter{MaxRisk: &medium})))
	assert.Equal(t, []string{"git_log", "read_file", "write_file"}, names(reg.List(registry.Filter{Mode: tool.ModeLockdown})))
	assert.Len(t, reg.List(registry.Filter{}), 4)
	s := reg.Suggest("red_file", 3)
	require.NotEmpty(t, s)
	assert.Equal(t, "read_file", s[0])
	assert.Equal(t, "git_log", reg.Suggest("GIT_LOG", 1)[0])
	assert.Empty(t, reg.Suggest("kubernetes_apply", 3))
}

type conformsWithoutSchema struct{ tool.Tool }

func (conformsWithoutSchema) OutputConforms() bool { return true }

func TestRegisterConformingToolWithoutOutputSchema(t *testing.T) {
	reg := registry.New()
	base := tool.Func("plain", "The plain test tool", noop[struct{}, string])
	require.NoError(t, reg.Register(conformsWithoutSchema{base}))
	e, ok := reg.Lookup("plain")
	require.True(t, ok)
	assert.False(t, e.ChecksOutput())
}
