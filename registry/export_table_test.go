package registry_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// obj wraps properties into a tool input schema.
func obj(props string, required ...string) string {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s}`, props, req)
}

func manyProps(n, nameLen int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("p%d_%s", i, strings.Repeat("x", nameLen))
		fmt.Fprintf(&b, `%q:{"type":"string"}`, name)
	}
	return b.String()
}

func enumOf(n, valueLen int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%q", fmt.Sprintf("v%d_%s", i, strings.Repeat("y", valueLen)))
	}
	return "[" + strings.Join(vals, ",") + "]"
}

func nested(depth int) string {
	s := `{"type":"string"}`
	for i := 0; i < depth; i++ {
		s = fmt.Sprintf(`{"type":"object","properties":{"n":%s},"required":["n"]}`, s)
	}
	return s
}

// trickySchemas are input schemas as they come from raw JSON, MCP servers
// and YAML: the shapes providers reject when exported carelessly.
var trickySchemas = []struct {
	name   string
	schema string
	// strict says whether the OpenAI export must stay strict (true) or
	// must fall back with a note (false).
	strict bool
}{
	{"enum_only_strings", obj(`"unit":{"enum":["metric","imperial"]}`, "unit"), true},
	{"enum_only_ints", obj(`"level":{"enum":[1,2,3]}`, "level"), true},
	{"enum_only_numbers", obj(`"ratio":{"enum":[0.5,1.5]}`, "ratio"), true},
	{"enum_only_mixed", obj(`"v":{"enum":["a",1,true]}`, "v"), true},
	{"enum_only_with_null", obj(`"v":{"enum":["a","b",null]}`, "v"), true},
	{"enum_only_optional", obj(`"unit":{"enum":["metric","imperial"]}`), true},
	{"const_string_untyped", obj(`"kind":{"const":"circle"}`, "kind"), true},
	{"const_number_untyped", obj(`"version":{"const":2}`, "version"), true},
	{"const_bool_untyped", obj(`"ok":{"const":true}`, "ok"), true},
	{"const_optional_untyped", obj(`"kind":{"const":"circle"}`), true},
	{"const_object", obj(`"o":{"const":{"a":1}}`, "o"), false},
	{"enum_items_untyped", obj(`"tags":{"type":"array","items":{"enum":["x","y"]}}`, "tags"), true},
	{"enum_in_anyof_untyped", obj(`"v":{"anyOf":[{"enum":["a","b"]},{"type":"integer"}]}`, "v"), true},
	{"too_many_enum_values", obj(`"v":{"type":"string","enum":`+enumOf(1001, 1)+`}`, "v"), false},
	{"enum_values_across_properties", obj(`"a":{"type":"string","enum":`+enumOf(600, 1)+`},"b":{"type":"string","enum":`+enumOf(600, 1)+`}`, "a", "b"), false},
	{"big_enum_long_strings", obj(`"v":{"type":"string","enum":`+enumOf(300, 60)+`}`, "v"), false},
	{"big_enum_short_strings", obj(`"v":{"type":"string","enum":`+enumOf(300, 10)+`}`, "v"), true},
	{"names_total_too_long", obj(manyProps(1300, 100)), false},
	{"too_many_properties", obj(manyProps(5001, 1)), false},
	{"nesting_11", obj(`"n":`+nested(10), "n"), false},
	{"nesting_10", obj(`"n":`+nested(8), "n"), true},
	{"base64_field", obj(`"data":{"type":"string","contentEncoding":"base64","description":"The file"}`, "data"), true},
	{"base64_media", obj(`"img":{"type":"string","contentEncoding":"base64","contentMediaType":"image/png"}`), true},
	{"format_byte", obj(`"b":{"type":"string","format":"byte"}`, "b"), true},
	{"formats", obj(`"u":{"type":"string","format":"uri"},"t":{"type":"string","format":"date-time"},"e":{"type":"string","format":"email"}`, "u", "t"), true},
	{"string_constraints", obj(`"s":{"type":"string","minLength":1,"maxLength":40,"pattern":"^[a-z]+$"}`, "s"), true},
	{"number_bounds", obj(`"x":{"type":"number","exclusiveMinimum":0,"maximum":10},"i":{"type":"integer","exclusiveMaximum":5}`, "x"), true},
	{"defaults_examples", obj(`"n":{"type":"integer","default":3,"examples":[1,2]}`), true},
	{"oneof_objects", obj(`"shape":{"oneOf":[{"type":"object","properties":{"r":{"type":"number"}},"required":["r"]},{"type":"object","properties":{"w":{"type":"number"}},"required":["w"]}]}`, "shape"), true},
	{"anyof_null", obj(`"s":{"anyOf":[{"type":"string"},{"type":"null"}]}`), true},
	{"type_array", obj(`"v":{"type":["string","integer"]}`, "v"), true},
	{"nullable_enum_typed", obj(`"v":{"type":["string","null"],"enum":["a","b"]}`), true},
	{"ref_defs", `{"type":"object","$defs":{"p":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"properties":{"a":{"$ref":"#/$defs/p"}},"required":["a"]}`, false},
	{"recursive_ref", `{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"root":{"$ref":"#/$defs/n"}}}`, false},
	{"map_optional", obj(`"labels":{"type":"object","additionalProperties":{"type":"string"}},"name":{"type":"string"}`, "name"), false},
	{"any_optional", obj(`"extra":{},"name":{"type":"string"}`, "name"), false},
	{"any_required", obj(`"extra":{"description":"anything"}`, "extra"), false},
	{"array_without_items", obj(`"xs":{"type":"array"}`, "xs"), false},
	{"tuple_prefix_items", obj(`"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]}`, "pt"), false},
	{"allof", obj(`"v":{"allOf":[{"type":"string"},{"minLength":2}]}`, "v"), false},
	{"no_arguments", `{"type":"object","properties":{}}`, false},
	{"gemini_int_enum_typed", obj(`"p":{"type":"integer","enum":[1,2,4]}`, "p"), true},
	{"description_only_enum_nested", obj(`"o":{"type":"object","properties":{"mode":{"enum":["r","w"],"description":"open mode"}},"required":["mode"]}`, "o"), true},
}

// Every export of every tricky schema passes its provider's rules; OpenAI
// stays strict where it can and falls back with a note where it cannot;
// enum-only fields keep their values in Gemini; a base64 field says so.
func TestTrickySchemasSatisfyEveryProvider(t *testing.T) {
	require.GreaterOrEqual(t, len(trickySchemas), 30)
	for _, c := range trickySchemas {
		t.Run(c.name, func(t *testing.T) {
			require.True(t, json.Valid([]byte(c.schema)), c.schema)
			spec := tool.Spec{Name: "t_" + c.name, Description: "tricky", InputSchema: json.RawMessage(c.schema)}
			for _, f := range registry.Formats {
				raw, notes, err := registry.ExportTool(f, spec)
				require.NoError(t, err, f)
				if raw == nil {
					require.NotEmpty(t, notes, "%s: a tool left out needs a note", f)
					continue
				}
				def := decode(raw)
				var errs []string
				switch f {
				case registry.OpenAIChat:
					errs = checkOpenAITool(def, false)
					strict := asMap(def["function"])["strict"] == true
					assert.Equal(t, c.strict, strict, "%s strict; notes %v", f, notes)
					if !strict {
						assert.NotEmpty(t, notes, "a fallback says why")
					}
				case registry.OpenAIResponses:
					errs = checkOpenAITool(def, true)
					assert.Equal(t, c.strict, def["strict"] == true, "%s strict; notes %v", f, notes)
				case registry.Anthropic:
					errs = checkAnthropicTool(def)
				case registry.Gemini:
					errs = checkGeminiDecl(def)
				case registry.MCP:
					errs = checkMCPTool(def)
				}
				assert.Empty(t, errs, "%s: %s", f, clipStr(string(raw)))
				if strings.Contains(c.schema, `"contentEncoding":"base64"`) && f != registry.Anthropic && f != registry.MCP {
					assert.Contains(t, strings.ReplaceAll(string(raw), spec.Name, ""), "base64", "%s: a base64 field says so", f)
				}
			}
		})
	}
}

func clipStr(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// Enum-only fields are exported with a type and their values, not emptied.
func TestEnumOnlyFieldsKeepTheirValues(t *testing.T) {
	spec := tool.Spec{Name: "units", Description: "d", InputSchema: json.RawMessage(obj(`"unit":{"enum":["metric","imperial"]},"level":{"enum":[1,2]}`, "unit", "level"))}
	raw, notes, err := registry.ExportTool(registry.Gemini, spec)
	require.NoError(t, err)
	p := asMap(asMap(decode(raw)["parameters"])["properties"])
	assert.Equal(t, "string", asMap(p["unit"])["type"], "notes %v", notes)
	assert.Equal(t, []any{"metric", "imperial"}, asMap(p["unit"])["enum"])
	assert.Equal(t, "integer", asMap(p["level"])["type"])
	assert.Contains(t, asMap(p["level"])["description"], "One of [1,2]")

	raw, notes, err = registry.ExportTool(registry.OpenAIChat, spec)
	require.NoError(t, err)
	params := asMap(asMap(decode(raw)["function"])["parameters"])
	assert.Equal(t, "string", asMap(asMap(params["properties"])["unit"])["type"], "notes %v", notes)
	assert.Equal(t, "integer", asMap(asMap(params["properties"])["level"])["type"])
}

// The checker refuses what OpenAI refuses: the limits are real checks.
func TestOpenAICheckerCatchesLimits(t *testing.T) {
	for name, s := range map[string]string{
		"untyped enum":  `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"enum":["x"]}}}`,
		"untyped const": `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"const":"x"}}}`,
		"enum count":    `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","enum":` + enumOf(1001, 1) + `}}}`,
		"big enum":      `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","enum":` + enumOf(300, 60) + `}}}`,
		"format":        `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","format":"uri"}}}`,
		"base64":        `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","contentEncoding":"base64"}}}`,
	} {
		assert.NotEmpty(t, checkOpenAIStrict(decode([]byte(s))), name)
	}
	assert.NotEmpty(t, checkGeminiDecl(decode([]byte(`{"name":"x","parameters":{"type":"object","properties":{"a":{"description":"no type"}}}}`))), "gemini untyped")
}
