package registry_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The rules each provider applies to tool definitions, written down as
// checks so that every export can be proven acceptable. They follow the
// providers' documentation (see DESIGN.md §9, field notes).

var portableName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

// OpenAI's documented Structured Outputs limits (platform.openai.com,
// guides/structured-outputs, "Supported schemas": objects have limitations
// on nesting and size).
const (
	openAIMaxProperties    = 5000    // object properties in total
	openAIMaxDepth         = 10      // levels of nesting
	openAIMaxStringTotal   = 120_000 // characters of property names, definition names, enum and const values
	openAIMaxEnumValues    = 1000    // enum values across all enum properties
	openAIBigEnum          = 250     // a string enum with more values than this ...
	openAIMaxBigEnumString = 15_000  // ... has at most this many characters in all
)

// checkOpenAIStrict: root an object and never anyOf; every object lists all
// its properties in required and sets additionalProperties false; no
// default, oneOf, allOf, not, $ref; every node has a type or anyOf (an
// enum or const without a type is refused); only the documented formats;
// nesting ≤ 10; the size limits above.
func checkOpenAIStrict(s map[string]any) []string {
	nprops, strLen, enumValues := 0, 0, 0
	var errs []string
	if s["type"] != "object" {
		errs = append(errs, "root: type must be object")
	}
	if _, ok := s["anyOf"]; ok {
		errs = append(errs, "root: must not be anyOf")
	}
	var walk func(n map[string]any, path string, depth int)
	walk = func(n map[string]any, path string, depth int) {
		if depth > openAIMaxDepth {
			errs = append(errs, path+": nesting deeper than 10")
		}
		for _, k := range []string{"default", "oneOf", "allOf", "not", "$ref", "if", "patternProperties", "minLength", "maxLength", "contentEncoding", "contentMediaType", "minProperties", "maxProperties", "uniqueItems", "examples"} {
			if _, ok := n[k]; ok {
				errs = append(errs, fmt.Sprintf("%s: keyword %q not allowed", path, k))
			}
		}
		if f, ok := n["format"].(string); ok && !openAIFormats[f] {
			errs = append(errs, fmt.Sprintf("%s: format %q not supported", path, f))
		}
		_, hasType := n["type"]
		_, hasAny := n["anyOf"]
		if !hasType && !hasAny {
			errs = append(errs, path+": untyped schema (an enum or const needs a type too)")
		}
		if e, ok := n["enum"].([]any); ok {
			enumValues += len(e)
			n := 0
			for _, x := range e {
				if str, ok := x.(string); ok {
					n += len(str)
				}
			}
			strLen += n
			if len(e) > openAIBigEnum && n > openAIMaxBigEnumString {
				errs = append(errs, fmt.Sprintf("%s: enum of %d values has %d characters (limit %d past %d values)", path, len(e), n, openAIMaxBigEnumString, openAIBigEnum))
			}
		}
		if c, ok := n["const"].(string); ok {
			strLen += len(c)
		}
		if types := typesOf(n); contains(types, "object") {
			props := asMap(n["properties"])
			for k := range props {
				strLen += len(k)
			}
			if n["additionalProperties"] != false {
				errs = append(errs, path+": additionalProperties must be false")
			}
			var names []string
			for k := range props {
				names = append(names, k)
			}
			sort.Strings(names)
			var req []string
			for _, r := range asSlice(n["required"]) {
				req = append(req, r.(string))
			}
			sort.Strings(req)
			if strings.Join(names, ",") != strings.Join(req, ",") {
				errs = append(errs, fmt.Sprintf("%s: required %v must list every property %v", path, req, names))
			}
			for k, p := range props {
				nprops++
				walk(asMap(p), path+"."+k, depth+1)
			}
		}
		if e, ok := n["enum"].([]any); ok && contains(typesOf(n), "null") {
			if !containsNil(e) {
				errs = append(errs, path+": nullable enum must contain null")
			}
		}
		if items, ok := n["items"]; ok {
			walk(asMap(items), path+"[]", depth+1)
		}
		for i, a := range asSlice(n["anyOf"]) {
			walk(asMap(a), fmt.Sprintf("%s.anyOf[%d]", path, i), depth+1)
		}
	}
	walk(s, "$", 1)
	if nprops > openAIMaxProperties {
		errs = append(errs, fmt.Sprintf("%d properties (limit %d)", nprops, openAIMaxProperties))
	}
	if enumValues > openAIMaxEnumValues {
		errs = append(errs, fmt.Sprintf("%d enum values (limit %d)", enumValues, openAIMaxEnumValues))
	}
	if strLen > openAIMaxStringTotal {
		errs = append(errs, fmt.Sprintf("%d characters of names and enum/const values (limit %d)", strLen, openAIMaxStringTotal))
	}
	return errs
}

var openAIFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

func checkOpenAITool(def map[string]any, flat bool) []string {
	var errs []string
	fn := def
	if !flat {
		if def["type"] != "function" {
			errs = append(errs, "type must be function")
		}
		fn = asMap(def["function"])
	} else if def["type"] != "function" {
		errs = append(errs, "type must be function")
	}
	if !portableName.MatchString(fmt.Sprint(fn["name"])) {
		errs = append(errs, "name not portable")
	}
	strict, ok := fn["strict"].(bool)
	if !ok {
		errs = append(errs, "strict must be sent explicitly")
	}
	params := asMap(fn["parameters"])
	if params["type"] != "object" {
		errs = append(errs, "parameters: root type must be object")
	}
	if strict {
		errs = append(errs, checkOpenAIStrict(params)...)
	}
	return errs
}

func checkAnthropicTool(def map[string]any) []string {
	var errs []string
	if !portableName.MatchString(fmt.Sprint(def["name"])) {
		errs = append(errs, "name not portable")
	}
	if _, ok := def["description"].(string); !ok {
		errs = append(errs, "description must be a string")
	}
	if asMap(def["input_schema"])["type"] != "object" {
		errs = append(errs, "input_schema.type must be object")
	}
	return errs
}

var geminiAllowed = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "anyOf": true, "items": true, "minimum": true, "maximum": true,
	"propertyOrdering": true,
}

// checkGemini: an OpenAPI subset: no $ref, additionalProperties, const,
// exclusive bounds or type arrays; enums are strings; objects have at least
// one property.
func checkGeminiDecl(decl map[string]any) []string {
	var errs []string
	if !portableName.MatchString(fmt.Sprint(decl["name"])) {
		errs = append(errs, "name not portable")
	}
	params, ok := decl["parameters"]
	if !ok {
		return errs
	}
	var walk func(n map[string]any, path string)
	walk = func(n map[string]any, path string) {
		for k := range n {
			if !geminiAllowed[k] {
				errs = append(errs, fmt.Sprintf("%s: keyword %q not in Gemini's subset", path, k))
			}
		}
		switch t := n["type"].(type) {
		case string:
		case nil:
			if _, ok := n["anyOf"]; !ok {
				errs = append(errs, path+": untyped schema")
			}
		default:
			errs = append(errs, fmt.Sprintf("%s: type must be a single string, got %v", path, t))
		}
		if e, ok := n["enum"].([]any); ok {
			if n["type"] != "string" {
				errs = append(errs, path+": enum only on strings")
			}
			for _, x := range e {
				if _, ok := x.(string); !ok {
					errs = append(errs, fmt.Sprintf("%s: enum value %v is not a string", path, x))
				}
			}
		}
		if n["type"] == "object" {
			props := asMap(n["properties"])
			if len(props) == 0 {
				errs = append(errs, path+": object needs at least one property")
			}
			for k, p := range props {
				walk(asMap(p), path+"."+k)
			}
			for _, r := range asSlice(n["required"]) {
				if _, ok := props[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s: required %v is not a property", path, r))
				}
			}
		}
		if n["type"] == "array" {
			items, ok := n["items"]
			if !ok {
				errs = append(errs, path+": array needs items")
			}
			walk(asMap(items), path+"[]")
		}
		for i, a := range asSlice(n["anyOf"]) {
			walk(asMap(a), fmt.Sprintf("%s.anyOf[%d]", path, i))
		}
	}
	p := asMap(params)
	if p["type"] != "object" {
		errs = append(errs, "parameters: root type must be object")
	}
	walk(p, "$")
	return errs
}

func checkMCPTool(def map[string]any) []string {
	var errs []string
	if !portableName.MatchString(fmt.Sprint(def["name"])) {
		errs = append(errs, "name not portable")
	}
	if asMap(def["inputSchema"])["type"] != "object" {
		errs = append(errs, "inputSchema.type must be object")
	}
	if out, ok := def["outputSchema"]; ok && asMap(out)["type"] != "object" {
		errs = append(errs, "outputSchema.type must be object")
	}
	ann := asMap(def["annotations"])
	// The hints are optional (MCP 2025-06-18, ToolAnnotations); when given
	// they are booleans.
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, present := ann[k]; present {
			if _, ok := v.(bool); !ok {
				errs = append(errs, "annotations."+k+" must be a boolean")
			}
		}
	}
	return errs
}

func typesOf(n map[string]any) []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func containsNil(s []any) bool {
	for _, v := range s {
		if v == nil {
			return true
		}
	}
	return false
}

func decode(raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	return m
}
