package registry

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Format is a provider's tool-definition format.
type Format string

// The export formats.
const (
	// OpenAIChat is the chat completions API:
	// {"type":"function","function":{"name","description","parameters","strict"}}.
	OpenAIChat Format = "openai_chat"
	// OpenAIResponses is the responses API, flat:
	// {"type":"function","name","description","parameters","strict"}.
	OpenAIResponses Format = "openai_responses"
	// Anthropic is the messages API: {"name","description","input_schema"}.
	Anthropic Format = "anthropic"
	// Gemini is a functionDeclarations entry with an OpenAPI-subset
	// "parameters"; the export marshals as [{"functionDeclarations":[...]}].
	Gemini Format = "gemini"
	// MCP is a tools/list entry: {"name","description","inputSchema",
	// "outputSchema","annotations"}.
	MCP Format = "mcp"
)

// Formats lists every export format.
var Formats = []Format{OpenAIChat, OpenAIResponses, Anthropic, Gemini, MCP}

// Note says how the export changed or left out one tool, for example "not
// strict: free-form object at config".
type Note struct {
	Tool    string `json:"tool"`
	Message string `json:"message"`
}

// Export is the definitions of a registry's tools in one provider's format.
type Export struct {
	Format Format
	// Tools holds one definition per exported tool, in registration order.
	Tools []json.RawMessage
	// Names holds the name of each entry of Tools.
	Names []string
	// Notes says where a tool could not be expressed as asked: OpenAI tools
	// that fell back to non-strict, Gemini tools or fields left out.
	Notes []Note
}

// MarshalJSON encodes the value of the request's "tools" field for the
// provider: an array of definitions, wrapped in one functionDeclarations
// object for Gemini.
func (e *Export) MarshalJSON() ([]byte, error) {
	tools := e.Tools
	if tools == nil {
		tools = []json.RawMessage{}
	}
	if e.Format == Gemini {
		return json.Marshal([]map[string]any{{"functionDeclarations": tools}})
	}
	return json.Marshal(tools)
}

// NotesFor returns the notes about one tool.
func (e *Export) NotesFor(name string) []Note {
	var out []Note
	for _, n := range e.Notes {
		if n.Tool == name {
			out = append(out, n)
		}
	}
	return out
}

// ExportOption tunes an export.
type ExportOption func(*exportConfig)

type exportConfig struct {
	filter    Filter
	nonStrict bool
}

// WithFilter exports only the tools that pass f (for example an agent's
// declared tools, or the tools allowed in the current mode).
func WithFilter(f Filter) ExportOption { return func(c *exportConfig) { c.filter = f } }

// NonStrict turns off OpenAI strict mode: schemas are sent as they are, with
// "strict": false.
func NonStrict() ExportOption { return func(c *exportConfig) { c.nonStrict = true } }

// Export renders the registered tools in format f. Each format applies its
// provider's rules (see the Format constants); a tool that cannot be
// expressed as asked falls back (OpenAI: non-strict) or is left out
// (Gemini), with a Note, so the export never holds a definition the provider
// would reject.
func (r *Registry) Export(f Format, opts ...ExportOption) (*Export, error) {
	var cfg exportConfig
	for _, o := range opts {
		o(&cfg)
	}
	specs := r.List(cfg.filter)
	ex := &Export{Format: f}
	for i := range specs {
		s := &specs[i]
		def, notes, err := exportOne(f, s, cfg)
		if err != nil {
			return nil, err
		}
		ex.Notes = append(ex.Notes, notes...)
		if def == nil {
			continue
		}
		raw, err := json.Marshal(def)
		if err != nil {
			return nil, fmt.Errorf("registry: export %s of tool %q: %w", f, s.Name, err)
		}
		ex.Tools = append(ex.Tools, raw)
		ex.Names = append(ex.Names, s.Name)
	}
	return ex, nil
}

// ExportTool renders one spec in format f (for tools not in a registry).
func ExportTool(f Format, spec tool.Spec, opts ...ExportOption) (json.RawMessage, []Note, error) {
	var cfg exportConfig
	for _, o := range opts {
		o(&cfg)
	}
	def, notes, err := exportOne(f, &spec, cfg)
	if err != nil || def == nil {
		return nil, notes, err
	}
	raw, err := json.Marshal(def)
	return raw, notes, err
}

func exportOne(f Format, s *tool.Spec, cfg exportConfig) (map[string]any, []Note, error) {
	in, err := decodeSchema(s.InputSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("registry: tool %q: input schema: %w", s.Name, err)
	}
	var notes []Note
	switch f {
	case OpenAIChat, OpenAIResponses:
		params, strict := in, false
		if !cfg.nonStrict {
			st := deepCopy(in).(map[string]any)
			reasons := strictify(st, "", 1, new(int), nil)
			if len(reasons) == 0 {
				reasons = openAILimits(st)
			}
			if len(reasons) > 0 {
				notes = append(notes, Note{Tool: s.Name, Message: "not strict: " + strings.Join(reasons, "; ")})
			} else {
				params, strict = st, true
			}
		}
		fn := map[string]any{"name": s.Name, "description": s.Description, "parameters": params, "strict": strict}
		if f == OpenAIResponses {
			fn["type"] = "function"
			return fn, notes, nil
		}
		return map[string]any{"type": "function", "function": fn}, notes, nil
	case Anthropic:
		return map[string]any{"name": s.Name, "description": s.Description, "input_schema": in}, nil, nil
	case Gemini:
		g := &geminiConv{root: in, tool: s.Name}
		decl := map[string]any{"name": s.Name, "description": s.Description}
		if props, _ := in["properties"].(map[string]any); len(props) > 0 {
			if n := g.inlinedSize(in, map[string]int{}, map[string]bool{}); n > maxGeminiInlined {
				return nil, []Note{{Tool: s.Name, Message: fmt.Sprintf("left out: its schema is more than %d bytes once its $refs are inlined (Gemini has no references, so each use of a definition is a copy): refer to shared definitions fewer times, or make the schema smaller", maxGeminiInlined)}}, nil
			}
			params, err := g.convert(in, "", 0)
			if err != nil {
				return nil, append(g.notes, Note{Tool: s.Name, Message: "left out: " + err.Error()}), nil
			}
			if pp, _ := params["properties"].(map[string]any); len(pp) > 0 {
				decl["parameters"] = params
			}
		}
		return decl, g.notes, nil
	case MCP:
		// A hint is exported only when the tool asserts it: a false bool may
		// just be unset, and a client reads a missing destructiveHint or
		// openWorldHint as true (MCP's defaults), which is the safe reading.
		// A read-only tool is also declared not destructive.
		a := s.Annotations
		ann := map[string]any{}
		if a.ReadOnly {
			ann["readOnlyHint"] = true
			ann["destructiveHint"] = false
		} else if a.Destructive {
			ann["destructiveHint"] = true
		}
		if a.Idempotent {
			ann["idempotentHint"] = true
		}
		if a.OpenWorld {
			ann["openWorldHint"] = true
		}
		def := map[string]any{"name": s.Name, "description": s.Description, "inputSchema": in}
		if a.Title != "" {
			def["title"] = a.Title
			ann["title"] = a.Title
		}
		if len(ann) > 0 {
			def["annotations"] = ann
		}
		if len(s.OutputSchema) > 0 {
			out, err := decodeSchema(s.OutputSchema)
			if err != nil {
				return nil, nil, fmt.Errorf("registry: tool %q: output schema: %w", s.Name, err)
			}
			def["outputSchema"] = out
		}
		return def, nil, nil
	}
	return nil, nil, fmt.Errorf("registry: unknown export format %q: use one of %v", f, Formats)
}

func decodeSchema(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "$schema")
	delete(m, "$id")
	return m, nil
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			m[k] = deepCopy(val)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, val := range x {
			s[i] = deepCopy(val)
		}
		return s
	}
	return v
}

func typeList(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func hasType(s map[string]any, t string) bool {
	for _, x := range typeList(s) {
		if x == t {
			return true
		}
	}
	return false
}

func at(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func where(path string) string {
	if path == "" {
		return "the root"
	}
	return path
}

// strictKeys are the keywords OpenAI strict mode accepts; everything else
// is dropped (the executor still validates against the full schema, so a
// dropped constraint is enforced after the model answers).
var strictKeys = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true,
	"title": true, "pattern": true, "format": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minItems": true, "maxItems": true,
}

var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// strictify rewrites s in place to OpenAI strict rules and returns the
// reasons, if any, the schema cannot be strict.
func strictify(s map[string]any, path string, depth int, count *int, reasons []string) []string {
	if depth > 10 {
		return append(reasons, fmt.Sprintf("nesting deeper than 10 levels at %s", where(path)))
	}
	if alt, ok := s["oneOf"]; ok {
		s["anyOf"] = alt
		delete(s, "oneOf")
	}
	for _, k := range []string{"allOf", "not", "if", "then", "else", "$ref", "dependentSchemas", "patternProperties"} {
		if _, ok := s[k]; ok {
			return append(reasons, fmt.Sprintf("%q at %s is not supported in strict mode", k, where(path)))
		}
	}
	dropUnsupported(s, strictKeys, strictFormats)
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			am, ok := a.(map[string]any)
			if !ok {
				return append(reasons, fmt.Sprintf("anyOf entry %d at %s is not a schema", i, where(path)))
			}
			reasons = strictify(am, path, depth+1, count, reasons)
		}
		return reasons
	}
	if t := inferType(s); t != nil {
		s["type"] = t
	}
	types := typeList(s)
	if len(types) == 0 {
		return append(reasons, fmt.Sprintf("free-form value (any type) at %s", where(path)))
	}
	if hasType(s, "object") {
		props, _ := s["properties"].(map[string]any)
		ap, hasAP := s["additionalProperties"]
		if apb, isBool := ap.(bool); hasAP && !(isBool && !apb) {
			return append(reasons, fmt.Sprintf("free-form object (map) at %s", where(path)))
		}
		if len(props) == 0 && !hasAP {
			return append(reasons, fmt.Sprintf("free-form object (map) at %s", where(path)))
		}
		required := map[string]bool{}
		if rl, ok := s["required"].([]any); ok {
			for _, r := range rl {
				if n, ok := r.(string); ok {
					required[n] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			*count++
			if *count > 5000 {
				return append(reasons, "more than 5000 properties")
			}
			pm, ok := props[name].(map[string]any)
			if !ok {
				reasons = append(reasons, fmt.Sprintf("free-form value (any type) at %s", at(path, name)))
				continue
			}
			reasons = strictify(pm, at(path, name), depth+1, count, reasons)
			if !required[name] {
				props[name] = nullable(pm)
			}
		}
		req := make([]any, len(names))
		for i, n := range names {
			req[i] = n
		}
		s["required"] = req
		s["additionalProperties"] = false
	}
	if hasType(s, "array") {
		items, ok := s["items"].(map[string]any)
		if !ok {
			return append(reasons, fmt.Sprintf("array without an items schema at %s", where(path)))
		}
		reasons = strictify(items, path+"[]", depth+1, count, reasons)
	}
	return reasons
}

// OpenAI's documented Structured Outputs size limits (guides/structured-
// outputs, "Objects have limitations on nesting and size"). Nesting (10
// levels) and the property count (5,000) are checked while rewriting.
const (
	openAIMaxStringTotal   = 120_000 // characters of property names, enum and const values
	openAIMaxEnumValues    = 1000    // enum values across the schema
	openAIBigEnum          = 250     // a string enum with more values than this ...
	openAIMaxBigEnumString = 15_000  // ... holds at most this many characters
)

// openAILimits returns why a strict schema is past OpenAI's size limits.
func openAILimits(s map[string]any) []string {
	var reasons []string
	strLen, enumValues := 0, 0
	var walk func(n map[string]any, path string)
	walk = func(n map[string]any, path string) {
		if e, ok := n["enum"].([]any); ok {
			enumValues += len(e)
			chars := 0
			for _, x := range e {
				if str, ok := x.(string); ok {
					chars += len(str)
				}
			}
			strLen += chars
			if len(e) > openAIBigEnum && chars > openAIMaxBigEnumString {
				reasons = append(reasons, fmt.Sprintf("enum at %s has %d values of %d characters in all (strict mode allows %d characters past %d values)", where(path), len(e), chars, openAIMaxBigEnumString, openAIBigEnum))
			}
		}
		if c, ok := n["const"].(string); ok {
			strLen += len(c)
		}
		props, _ := n["properties"].(map[string]any)
		for _, name := range sortedKeys(props) {
			strLen += len(name)
			if pm, ok := props[name].(map[string]any); ok {
				walk(pm, at(path, name))
			}
		}
		if items, ok := n["items"].(map[string]any); ok {
			walk(items, path+"[]")
		}
		alts, _ := n["anyOf"].([]any)
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok {
				walk(am, path)
			}
		}
	}
	walk(s, "")
	if enumValues > openAIMaxEnumValues {
		reasons = append(reasons, fmt.Sprintf("%d enum values in all (strict mode allows %d)", enumValues, openAIMaxEnumValues))
	}
	if strLen > openAIMaxStringTotal {
		reasons = append(reasons, fmt.Sprintf("%d characters of property names and enum/const values (strict mode allows %d)", strLen, openAIMaxStringTotal))
	}
	return reasons
}

// inferType returns the type an untyped enum or const implies (raw, MCP
// and YAML schemas often leave it out; OpenAI strict mode and Gemini need
// it): one type name, or a list when the values differ in type. It returns
// nil when s has a type, an anyOf/oneOf, or neither enum nor const.
func inferType(s map[string]any) any {
	if _, ok := s["type"]; ok {
		return nil
	}
	if _, ok := s["anyOf"]; ok {
		return nil
	}
	if _, ok := s["oneOf"]; ok {
		return nil
	}
	var values []any
	if e, ok := s["enum"].([]any); ok {
		values = e
	} else if c, ok := s["const"]; ok {
		values = []any{c}
	} else {
		return nil
	}
	var types []any
	seen := map[string]bool{}
	for _, v := range values {
		t := jsonType(v)
		if !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	if seen["integer"] && seen["number"] { // 1 and 1.5: number holds both
		kept := types[:0]
		for _, t := range types {
			if t != "integer" {
				kept = append(kept, t)
			}
		}
		types = kept
	}
	switch len(types) {
	case 0:
		return nil
	case 1:
		return types[0]
	}
	return types
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// encodingHints are the description hints for a field's content keywords,
// which no provider's tool schema keeps: a model told nothing sends raw
// bytes or text where base64 is expected.
func encodingHints(s map[string]any) []string {
	var hints []string
	if enc, ok := s["contentEncoding"].(string); ok && enc != "" {
		hints = append(hints, enc+"-encoded")
	}
	if mt, ok := s["contentMediaType"].(string); ok && mt != "" {
		hints = append(hints, "media type: "+mt)
	}
	return hints
}

// dropUnsupported removes keywords a provider does not accept. Constraints
// a model should still know about (formats, lengths, bounds) move into the
// description as a hint; the executor enforces them either way.
func dropUnsupported(s map[string]any, keys, formats map[string]bool) {
	hints := encodingHints(s)
	for _, k := range sortedKeys(s) {
		if keys[k] {
			continue
		}
		switch k {
		case "minLength", "maxLength", "minProperties", "maxProperties", "uniqueItems", "exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum", "pattern", "multipleOf":
			b, _ := json.Marshal(s[k])
			hints = append(hints, k+": "+string(b))
		}
		delete(s, k)
	}
	if f, ok := s["format"].(string); ok && !formats[f] {
		hints = append(hints, "format: "+f)
		delete(s, "format")
	}
	if len(hints) > 0 {
		d, _ := s["description"].(string)
		s["description"] = strings.TrimSpace(d + " (" + strings.Join(hints, ", ") + ")")
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// nullable makes an optional property accept null, which is how strict
// mode expresses "may be left out"; the executor turns such nulls back into
// absent fields.
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		if t == "null" {
			return s
		}
		s["type"] = []any{t, "null"}
		addNullEnum(s)
		return s
	case []any:
		if !hasType(s, "null") {
			s["type"] = append(t, "null")
		}
		addNullEnum(s)
		return s
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && hasType(am, "null") {
				return s
			}
		}
		s["anyOf"] = append(alts, map[string]any{"type": "null"})
		return s
	}
	out := map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
		delete(s, "description")
	}
	return out
}

func addNullEnum(s map[string]any) {
	if e, ok := s["enum"].([]any); ok {
		for _, x := range e {
			if x == nil {
				return
			}
		}
		s["enum"] = append(e, nil)
	}
}

// geminiKeys are the keywords of Gemini's OpenAPI subset.
var geminiKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "anyOf": true, "items": true, "minimum": true, "maximum": true,
	"propertyOrdering": true,
}

type geminiConv struct {
	expanding map[string]bool // $refs being inlined on the current path
	root      map[string]any
	tool      string
	notes     []Note
}

type omitErr struct{ msg string }

func (e *omitErr) Error() string { return e.msg }

func (g *geminiConv) note(msg string) { g.notes = append(g.notes, Note{Tool: g.tool, Message: msg}) }

// convert returns a Gemini schema for s. An *omitErr means the schema
// cannot be expressed; the caller leaves the property out when it is
// optional.
func (g *geminiConv) convert(s map[string]any, path string, depth int) (map[string]any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("schema at %s is nested deeper than 32 levels (recursive $ref?)", where(path))
	}
	if ref, ok := s["$ref"].(string); ok {
		if g.expanding[ref] {
			return nil, fmt.Errorf("recursive $ref %q at %s cannot be inlined, and Gemini has no references", ref, where(path))
		}
		if g.expanding == nil {
			g.expanding = map[string]bool{}
		}
		g.expanding[ref] = true
		defer delete(g.expanding, ref)
		target, err := g.resolve(ref)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where(path), err)
		}
		merged := deepCopy(target).(map[string]any)
		if d, ok := s["description"]; ok {
			merged["description"] = d
		}
		return g.convert(merged, path, depth+1)
	}
	if alt, ok := s["oneOf"]; ok {
		s = deepCopy(s).(map[string]any)
		s["anyOf"] = alt
	}
	if t := inferType(s); t != nil {
		s = deepCopy(s).(map[string]any)
		s["type"] = t
	}
	out := map[string]any{}
	desc, _ := s["description"].(string)
	if hints := encodingHints(s); len(hints) > 0 {
		desc = strings.TrimSpace(desc + " (" + strings.Join(hints, ", ") + ")")
	}
	if c, ok := s["const"]; ok {
		if cs, ok := c.(string); ok {
			out["type"], out["enum"] = "string", []any{cs}
		} else {
			b, _ := json.Marshal(c)
			desc = strings.TrimSpace(desc + " Must be " + string(b) + ".")
		}
	}
	types := typeList(s)
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			out["nullable"] = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		var conv []any
		for _, a := range alts {
			am, _ := a.(map[string]any)
			if hasType(am, "null") && len(typeList(am)) == 1 {
				out["nullable"] = true
				continue
			}
			c, err := g.convert(am, path, depth+1)
			if err != nil {
				return nil, err
			}
			conv = append(conv, c)
		}
		if len(conv) == 1 {
			for k, v := range conv[0].(map[string]any) {
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		} else {
			out["anyOf"] = conv
		}
	} else if len(nonNull) > 1 {
		var conv []any
		for _, t := range nonNull {
			c := deepCopy(s).(map[string]any)
			c["type"] = t
			cc, err := g.convert(c, path, depth+1)
			if err != nil {
				return nil, err
			}
			conv = append(conv, cc)
		}
		out["anyOf"] = conv
	} else if len(nonNull) == 1 {
		out["type"] = nonNull[0]
	} else if _, ok := out["type"]; !ok && s["enum"] == nil {
		return nil, &omitErr{fmt.Sprintf("%s accepts any JSON value, which Gemini cannot express", where(path))}
	}
	for k, v := range s {
		if !geminiKeys[k] || k == "type" || k == "anyOf" || k == "properties" || k == "items" || k == "description" || k == "nullable" {
			continue
		}
		out[k] = v
	}
	switch t, _ := out["type"].(string); t {
	case "string":
		if f, _ := out["format"].(string); f != "" && f != "date-time" && f != "enum" {
			delete(out, "format")
			desc = strings.TrimSpace(desc + " (format: " + f + ")")
		}
	case "integer":
		if f, _ := out["format"].(string); f != "" && f != "int32" && f != "int64" {
			delete(out, "format")
			desc = strings.TrimSpace(desc + " (format: " + f + ")")
		}
		if v, ok := num(s["exclusiveMinimum"]); ok {
			out["minimum"] = v + 1
		}
		if v, ok := num(s["exclusiveMaximum"]); ok {
			out["maximum"] = v - 1
		}
	case "number":
		if f, _ := out["format"].(string); f != "" && f != "float" && f != "double" {
			delete(out, "format")
			desc = strings.TrimSpace(desc + " (format: " + f + ")")
		}
		if v, ok := s["exclusiveMinimum"]; ok {
			desc = strings.TrimSpace(fmt.Sprintf("%s Must be > %v.", desc, v))
		}
		if v, ok := s["exclusiveMaximum"]; ok {
			desc = strings.TrimSpace(fmt.Sprintf("%s Must be < %v.", desc, v))
		}
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			return nil, &omitErr{fmt.Sprintf("%s is a free-form object, which Gemini cannot express", where(path))}
		}
		required := map[string]bool{}
		if rl, ok := s["required"].([]any); ok {
			for _, r := range rl {
				if n, ok := r.(string); ok {
					required[n] = true
				}
			}
		}
		cp := map[string]any{}
		var req []any
		for _, name := range sortedKeys(props) {
			pm, _ := props[name].(map[string]any)
			c, err := g.convert(pm, at(path, name), depth+1)
			if err != nil {
				if _, omit := err.(*omitErr); omit && !required[name] {
					g.note(fmt.Sprintf("left out optional field %s: %v", at(path, name), err))
					continue
				}
				return nil, err
			}
			cp[name] = c
			if required[name] {
				req = append(req, name)
			}
		}
		if len(cp) == 0 {
			return nil, &omitErr{fmt.Sprintf("%s has no field Gemini can express", where(path))}
		}
		out["properties"] = cp
		if len(req) > 0 {
			names := make([]string, len(req))
			for i, r := range req {
				names[i] = r.(string)
			}
			sort.Strings(names)
			for i, n := range names {
				req[i] = n
			}
			out["required"] = req
		} else {
			delete(out, "required")
		}
	case "array":
		items, ok := s["items"].(map[string]any)
		if !ok {
			return nil, &omitErr{fmt.Sprintf("%s is an array without an items schema", where(path))}
		}
		c, err := g.convert(items, path+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		out["items"] = c
	}
	if e, ok := out["enum"].([]any); ok {
		allStrings := true
		for _, x := range e {
			if _, ok := x.(string); !ok && x != nil {
				allStrings = false
			}
		}
		if !allStrings || out["type"] != "string" {
			b, _ := json.Marshal(e)
			desc = strings.TrimSpace(desc + " One of " + string(b) + ".")
			delete(out, "enum")
		} else {
			clean := make([]any, 0, len(e))
			for _, x := range e {
				if x != nil {
					clean = append(clean, x)
				}
			}
			out["enum"] = clean
			out["format"] = "enum"
		}
	}
	if desc != "" {
		out["description"] = desc
	}
	return out, nil
}

// maxGeminiInlined bounds the size of a Gemini declaration's parameters
// once their $refs are inlined: a schema of a few KB whose definitions
// each refer to the next several times is millions of copies.
const maxGeminiInlined = 1 << 20

// inlinedSize is about how many bytes v encodes to once every local $ref
// in it is inlined, counting each definition once per use (a $ref back
// into one being counted counts nothing: the export refuses recursion).
// It stops just past maxGeminiInlined.
func (g *geminiConv) inlinedSize(v any, memo map[string]int, open map[string]bool) int {
	n := 2
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if size, ok := memo[ref]; ok {
				n += size
			} else if target, err := g.resolve(ref); err == nil && !open[ref] {
				open[ref] = true
				size = g.inlinedSize(target, memo, open)
				delete(open, ref)
				memo[ref] = size
				n += size
			}
		}
		for k, c := range x {
			if k == "$defs" || k == "definitions" {
				continue // inlined where they are used
			}
			n = min(n+len(k)+4+g.inlinedSize(c, memo, open), maxGeminiInlined+1)
		}
	case []any:
		for _, c := range x {
			n = min(n+1+g.inlinedSize(c, memo, open), maxGeminiInlined+1)
		}
	case string:
		n += len(x)
	default:
		n = 8
	}
	return min(n, maxGeminiInlined+1)
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

func (g *geminiConv) resolve(ref string) (map[string]any, error) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := g.root[strings.TrimSuffix(strings.TrimPrefix(prefix, "#/"), "/")].(map[string]any)
			if d, ok := defs[name].(map[string]any); ok {
				return d, nil
			}
			return nil, fmt.Errorf("$ref %q points to no definition", ref)
		}
	}
	return nil, fmt.Errorf("$ref %q is not a local definition", ref)
}
