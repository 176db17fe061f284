// Package loader reads tool definitions from YAML or JSON files, a file
// system or a URL, and registers them in a registry.Registry. It is the
// only part of the SDK that reads tool files; the registry itself only
// stores, filters and exports tools, and each backend kind (tool/shell,
// tool/httptool, tool/mcptool) builds its own tools from the
// implementation block (a KindFunc).
package loader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolbelt-go/toolbelt/internal/suggest"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/internal/yamlbound"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// KindFunc builds the tool of one implementation kind ("http", "shell",
// "mcp", ...) from the spec a file declares and the file's implementation
// block, re-encoded as JSON. Backend packages provide them
// (httptool.Kind(...)); the registry imports none of them.
//
// An error that has a FieldPath() string method (a dotted path inside the
// implementation block, such as "query.state") is reported at that key's
// line; errors joined with errors.Join are reported one problem each.
type KindFunc func(spec tool.Spec, impl json.RawMessage) (tool.Tool, error)

// Defaults of a Loader.
const (
	// DefaultLoadMaxBytes caps the size of one tool file.
	DefaultLoadMaxBytes = 4 << 20
	// DefaultLoadTimeout bounds LoadURL's fetch when ctx has no earlier deadline.
	DefaultLoadTimeout = 30 * time.Second
)

// Loader reads tool definitions from YAML or JSON files (JSON is YAML) and
// registers them. A file looks like:
//
//	tools:
//	  - name: read_file
//	    description: Read a file of the workspace
//	    type: go                  # go | shell | http | mcp | any key of Kinds
//	    input_schema:             # a JSON Schema whose root is an object
//	      type: object
//	      properties: {path: {type: string}}
//	      required: [path]
//	    output_schema: {...}      # optional
//	    implementation:           # depends on the type
//	      function: read_file     # go: the key in Funcs (default: the tool's name)
//	    metadata:
//	      version: "1.2"
//	      category: files
//	      tags: [fs, read]
//	      risk: low               # low | medium | high
//	      requires_approval: false
//	      allowed_modes: [normal, degraded]
//	      timeout: 30s
//	      rate_limit_per_hour: 100
//	      secrets: [auth.token]
//	      annotations: {title: Read file, read_only: true, destructive: false, idempotent: true, open_world: false}
//
// Type go is built in: the file gives the name, description, schemas and
// metadata, and Funcs gives the implementation (a tool.Tool; fields the file
// leaves out, such as a reflected input schema, come from it). Every other
// type is a KindFunc in Kinds, which receives the implementation block as
// JSON and builds the tool itself: the loader knows no kind (shell.Kind
// parses implementation.command, httptool.Kind the request).
//
// Every problem of every file is reported at once, with the file, the line
// and the tool, as a *LoadError; a load with any problem registers nothing.
// The zero Loader loads go tools only when Funcs is set; it is safe for
// concurrent use as long as its fields are not changed.
type Loader struct {
	// Funcs is the function table that tools of type go refer to by name.
	// FuncTable builds one keyed by each tool's name.
	Funcs map[string]tool.Tool
	// Kinds maps a type name to its factory.
	Kinds map[string]KindFunc
	// Modes lists operating modes accepted in allowed_modes besides the
	// built-in ones (normal, alert, degraded, lockdown, recovery).
	Modes []string
	// Client fetches LoadURL's URL (default: a new http.Client).
	Client *http.Client
	// MaxBytes caps one file's size (default DefaultLoadMaxBytes).
	MaxBytes int64
	// Timeout bounds LoadURL's fetch (default DefaultLoadTimeout).
	Timeout time.Duration
}

// FuncTable returns a function table for Loader.Funcs with each tool under
// its own name.
func FuncTable(tools ...tool.Tool) map[string]tool.Tool {
	m := make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		if t != nil {
			m[t.Spec().Name] = t
		}
	}
	return m
}

// Problem is one thing wrong with a tool file.
type Problem struct {
	// File is the name of the file (a path, an fs.FS path or a URL).
	File string
	// Line is the 1-based line, 0 when the problem is about the whole file.
	Line int
	// Tool is the name of the tool concerned, if known.
	Tool string
	// Message says what is wrong and how to fix it.
	Message string
}

// String formats the problem as `file:line: tool "name": message`.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteString(":" + strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
	}
	if p.Tool != "" {
		fmt.Fprintf(&b, "tool %q: ", p.Tool)
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadError lists every problem found by a load. Nothing was registered.
type LoadError struct {
	Problems []Problem
}

// Error lists the problems, one a line.
func (e *LoadError) Error() string {
	if len(e.Problems) == 1 {
		return "load tools: " + e.Problems[0].String() + " (nothing was registered)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "load tools: %d problems (nothing was registered):", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n\t" + p.String())
	}
	return b.String()
}

// Load reads one file's definitions from r and registers them in reg. name
// is used in messages (and its extension says whether it is JSON).
func (l *Loader) Load(reg *registry.Registry, r io.Reader, name string) error {
	s := l.session()
	if data, ok := s.read(r, name); ok {
		s.parse(data, name)
	}
	return s.commit(reg)
}

// LoadFile reads the file at path and registers its tools in reg.
func (l *Loader) LoadFile(reg *registry.Registry, path string) error {
	s := l.session()
	f, err := os.Open(path)
	if err != nil {
		s.add(path, 0, "", "cannot be read: "+errText(err))
		return s.commit(reg)
	}
	defer f.Close()
	if data, ok := s.read(f, path); ok {
		s.parse(data, path)
	}
	return s.commit(reg)
}

// LoadFS reads every file of fsys matching pattern (fs.Glob syntax, e.g.
// "tools/*.yaml"), in name order, and registers all their tools in reg, or
// none if any file has a problem.
func (l *Loader) LoadFS(reg *registry.Registry, fsys fs.FS, pattern string) error {
	s := l.session()
	names, err := fs.Glob(fsys, pattern)
	switch {
	case err != nil:
		s.add(pattern, 0, "", "is not a valid pattern: "+err.Error())
	case len(names) == 0:
		s.add(pattern, 0, "", "matches no files")
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := fsys.Open(n)
		if err != nil {
			s.add(n, 0, "", "cannot be read: "+errText(err))
			continue
		}
		data, ok := s.read(f, n)
		f.Close()
		if ok {
			s.parse(data, n)
		}
	}
	return s.commit(reg)
}

// LoadURL fetches a tool file with an HTTP GET (bounded by Timeout and
// MaxBytes) and registers its tools in reg.
func (l *Loader) LoadURL(ctx context.Context, reg *registry.Registry, rawURL string) error {
	s := l.session()
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s.add(rawURL, 0, "", "is not an http or https URL")
		return s.commit(reg)
	}
	name := u.Redacted()
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLoadTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := l.Client
	if client == nil {
		client = &http.Client{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		s.add(name, 0, "", "cannot be requested: "+err.Error())
		return s.commit(reg)
	}
	req.Header.Set("Accept", "application/yaml, application/json;q=0.9, text/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		s.add(name, 0, "", "cannot be fetched: "+err.Error())
		return s.commit(reg)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.add(name, 0, "", "cannot be fetched: the server answered "+resp.Status)
		return s.commit(reg)
	}
	if data, ok := s.read(resp.Body, name); ok {
		s.parse(data, name)
	}
	return s.commit(reg)
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// session is one load: the problems and tools found so far.
type session struct {
	l     *Loader
	probs []Problem
	defs  []*loaded
	seen  map[string]*loaded
}

type loaded struct {
	file string
	line int
	name string
	tool tool.Tool
}

func (l *Loader) session() *session { return &session{l: l, seen: map[string]*loaded{}} }

func (s *session) add(file string, line int, toolName, msg string) {
	s.probs = append(s.probs, Problem{File: file, Line: line, Tool: toolName, Message: msg})
}

func (s *session) read(r io.Reader, name string) ([]byte, bool) {
	max := s.l.MaxBytes
	if max <= 0 {
		max = DefaultLoadMaxBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		s.add(name, 0, "", "cannot be read: "+errText(err))
		return nil, false
	}
	if int64(len(data)) > max {
		s.add(name, 0, "", fmt.Sprintf("is larger than %d bytes: split it, or raise Loader.MaxBytes", max))
		return nil, false
	}
	return data, true
}

// commit registers everything found, or nothing when there is a problem.
func (s *session) commit(reg *registry.Registry) error {
	if reg == nil {
		s.add("", 0, "", "the registry is nil: pass the *registry.Registry to load into")
	} else {
		for _, d := range s.defs {
			if _, dup := reg.Lookup(d.name); dup {
				s.add(d.file, d.line, d.name, "is already registered in the registry: rename it, or Remove the registered one first")
			}
		}
	}
	if len(s.probs) == 0 {
		tools := make([]tool.Tool, len(s.defs))
		for i, d := range s.defs {
			tools[i] = d.tool
		}
		if err := reg.Register(tools...); err != nil {
			s.add("", 0, "", err.Error())
		}
	}
	if len(s.probs) == 0 {
		return nil
	}
	sort.SliceStable(s.probs, func(i, j int) bool {
		a, b := s.probs[i], s.probs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return &LoadError{Problems: s.probs}
}

// parse reads one file's definitions.
func (s *session) parse(data []byte, file string) {
	if strings.EqualFold(path.Ext(file), ".json") {
		// JSON is YAML, but encoding/json says what is wrong with bad JSON
		// in JSON's terms.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			line := 0
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			}
			s.add(file, line, "", "is not valid JSON: "+err.Error())
			return
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	docs := 0
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			line, msg := yamlError(err)
			s.add(file, line, "", "is not valid YAML: "+msg)
			return
		}
		docs++
		// Bound what the document can make us build (alias bombs, depth)
		// before anything expands it.
		if err := yamlbound.Check(&doc, 0, 0); err != nil {
			var be *yamlbound.Error
			if errors.As(err, &be) {
				s.add(file, be.Line, "", be.Message)
			} else {
				s.add(file, 0, "", err.Error())
			}
			return
		}
		s.parseDoc(file, &doc)
	}
	if docs == 0 {
		s.add(file, 0, "", "is empty: it should hold a tools: list")
	}
}

// yamlError extracts the line from a yaml.v3 error ("yaml: line 3: ...").
func yamlError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return line, m
			}
		}
	}
	return 0, msg
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// kv is one key of a mapping.
type kv struct {
	key, val *yaml.Node
}

// pairs returns a mapping's keys in order, reporting duplicate and
// non-string keys.
func (s *session) pairs(file, toolName, where string, n *yaml.Node) map[string]kv {
	out := map[string]kv{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			s.add(file, k.Line, toolName, where+"has a key that is not a string")
			continue
		}
		if k.Value == "<<" {
			s.add(file, k.Line, toolName, where+"uses a YAML merge key (<<): write the keys out")
			continue
		}
		if prev, dup := out[k.Value]; dup {
			s.add(file, k.Line, toolName, fmt.Sprintf("%s%q is given twice (first at line %d)", where, k.Value, prev.key.Line))
			continue
		}
		out[k.Value] = kv{k, v}
	}
	return out
}

// unknownKeys reports keys of m that are not in known, with a hint.
func (s *session) unknownKeys(file, toolName, where string, m map[string]kv, known []string, hints map[string]string) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if contains(known, k) {
			continue
		}
		msg := fmt.Sprintf("%sunknown key %q", where, k)
		if h, ok := hints[k]; ok {
			msg += ": " + h
		} else if sug := closest(k, known); sug != "" {
			msg += fmt.Sprintf(": did you mean %q?", sug)
		} else {
			msg += ": known keys are " + strings.Join(known, ", ")
		}
		s.add(file, m[k].key.Line, toolName, msg)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// closest returns the candidate nearest to s when it is near enough.
func closest(s string, candidates []string) string { return suggest.Closest(s, candidates) }

var (
	rootKeys  = []string{"tools"}
	toolKeys  = []string{"name", "description", "type", "input_schema", "output_schema", "implementation", "metadata"}
	toolHints = map[string]string{
		"tool_type":             `use "type"`,
		"kind":                  `use "type"`,
		"implementation_config": `use "implementation"`,
		"inputSchema":           `use "input_schema"`,
		"parameters":            `use "input_schema"`,
		"outputSchema":          `use "output_schema"`,
		"risk":                  `risk goes under metadata`,
		"category":              `category goes under metadata`,
		"tags":                  `tags go under metadata`,
		"timeout":               `timeout goes under metadata`,
		"requires_approval":     `requires_approval goes under metadata`,
	}
	metaKeys  = []string{"version", "category", "tags", "risk", "requires_approval", "allowed_modes", "timeout", "rate_limit_per_hour", "annotations", "secrets"}
	metaHints = map[string]string{
		"is_dangerous":  `use risk: high (and requires_approval: true)`,
		"dangerous":     `use risk: high (and requires_approval: true)`,
		"approval":      `use requires_approval`,
		"modes":         `use allowed_modes`,
		"rate_limit":    `use rate_limit_per_hour`,
		"readOnlyHint":  `annotations are read_only, destructive, idempotent, open_world, title`,
		"read_only":     `read_only goes under metadata.annotations`,
		"idempotent":    `idempotent goes under metadata.annotations`,
		"destructive":   `destructive goes under metadata.annotations`,
		"timeout_secs":  `use timeout: 30s`,
		"timeout_sec":   `use timeout: 30s`,
		"timeout_ms":    `use timeout: 500ms`,
		"timeout_after": `use timeout`,
	}
	annotationKeys = []string{"title", "read_only", "destructive", "idempotent", "open_world"}
	annotationHint = map[string]string{
		"readOnlyHint":    `use read_only`,
		"destructiveHint": `use destructive`,
		"idempotentHint":  `use idempotent`,
		"openWorldHint":   `use open_world`,
	}
	builtinModes = []string{tool.ModeNormal, tool.ModeAlert, tool.ModeDegraded, tool.ModeLockdown, tool.ModeRecovery}
)

func (s *session) parseDoc(file string, doc *yaml.Node) {
	root := doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return
		}
		root = deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		s.add(file, root.Line, "", "the top level must be a mapping with a tools: list")
		return
	}
	m := s.pairs(file, "", "", root)
	s.unknownKeys(file, "", "", m, rootKeys, map[string]string{"tool": `use "tools", a list`, "specs": `use "tools"`})
	tools, ok := m["tools"]
	if !ok {
		s.add(file, root.Line, "", "has no tools: list")
		return
	}
	if tools.val.Kind != yaml.SequenceNode {
		s.add(file, tools.val.Line, "", "tools must be a list of tool definitions (each starting with \"- name: ...\")")
		return
	}
	if len(tools.val.Content) == 0 {
		s.add(file, tools.val.Line, "", "the tools: list is empty")
	}
	for i, item := range tools.val.Content {
		s.parseTool(file, i, deref(item))
	}
}

// def is what one definition says, before it becomes a tool.
type def struct {
	file, name, kind string
	line             int
	m                map[string]kv
}

func (s *session) parseTool(file string, idx int, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		s.add(file, n.Line, "", fmt.Sprintf("tools[%d] must be a mapping (name:, description:, type:, ...)", idx))
		return
	}
	before := len(s.probs)
	d := &def{file: file, line: n.Line, m: s.pairs(file, "", "", n)}
	// The name first, so every later problem can say which tool it is about.
	if k, ok := d.m["name"]; !ok {
		s.add(file, n.Line, "", fmt.Sprintf("tools[%d] has no name: give it a name such as \"search\"", idx))
	} else if name, ok := s.scalarString(d, k, "name"); ok {
		d.name = name
		if err := tool.CheckName(name); err != nil {
			s.add(file, k.val.Line, name, err.Error())
		}
		if prev, dup := s.seen[name]; dup {
			s.add(file, k.key.Line, name, fmt.Sprintf("is defined twice (first at %s:%d): tool names must be unique", prev.file, prev.line))
		}
	}
	for i := range s.probs[before:] {
		if s.probs[before+i].Tool == "" {
			s.probs[before+i].Tool = d.name
		}
	}
	s.unknownKeys(file, d.name, "", d.m, toolKeys, toolHints)
	placeholder := &loaded{file: file, line: n.Line, name: d.name}
	if d.name != "" {
		if _, dup := s.seen[d.name]; !dup {
			s.seen[d.name] = placeholder
		}
	}

	kinds := s.kindNames()
	if k, ok := d.m["type"]; !ok {
		s.add(file, n.Line, d.name, "type is missing: set it to one of "+strings.Join(kinds, ", "))
	} else if kind, ok := s.scalarString(d, k, "type"); ok {
		d.kind = kind
		if !contains(kinds, kind) {
			msg := fmt.Sprintf("type %q is not known", kind)
			switch {
			case contains([]string{"shell", "http", "mcp"}, kind):
				msg = fmt.Sprintf("type %q has no factory in this Loader: add it to Loader.Kinds (for example \"http\": httptool.Kind())", kind)
			case closest(kind, kinds) != "":
				msg += fmt.Sprintf(": did you mean %q?", closest(kind, kinds))
			default:
				msg += ": known types are " + strings.Join(kinds, ", ")
			}
			s.add(file, k.val.Line, d.name, msg)
			d.kind = ""
		}
	}

	var spec tool.Spec
	var impl tool.Tool
	if d.kind == "go" {
		impl = s.goImpl(d)
		if impl != nil {
			spec = impl.Spec()
		}
	}
	spec.Name = d.name
	if k, ok := d.m["description"]; ok {
		if desc, ok := s.scalarString(d, k, "description"); ok {
			if strings.TrimSpace(desc) == "" {
				s.add(file, k.val.Line, d.name, "description is empty: tell the model what the tool does and when to use it")
			}
			spec.Description = desc
		}
	} else if d.kind != "go" || (impl != nil && spec.Description == "") {
		s.add(file, n.Line, d.name, "description is missing: tell the model what the tool does and when to use it")
	}
	if raw, ok := s.schemaField(d, "input_schema"); ok {
		spec.InputSchema = raw
	} else if len(spec.InputSchema) == 0 {
		spec.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if raw, ok := s.schemaField(d, "output_schema"); ok {
		spec.OutputSchema = raw
	}
	if d.kind != "go" {
		// A command, an endpoint or a remote tool changes something outside
		// the program unless the file says otherwise: medium unless a
		// metadata.risk says otherwise.
		spec.Risk = tool.RiskMedium
	}
	if k, ok := d.m["metadata"]; ok {
		s.parseMetadata(d, k.val, &spec)
	}
	if len(s.probs) > before || d.kind == "" {
		s.checkImplKeys(d)
		return
	}
	t := s.build(d, spec, impl)
	if t == nil {
		return
	}
	placeholder.tool = t
	s.defs = append(s.defs, placeholder)
}

func (s *session) kindNames() []string {
	names := []string{"go"}
	for k, f := range s.l.Kinds {
		if f != nil && k != "go" {
			names = append(names, k)
		}
	}
	sort.Strings(names[1:])
	return names
}

// checkImplKeys still reports a malformed implementation block when the
// definition already has other problems, so one pass shows them all.
func (s *session) checkImplKeys(d *def) {
	if k, ok := d.m["implementation"]; ok && k.val.Kind != yaml.MappingNode {
		s.add(d.file, k.val.Line, d.name, "implementation must be a mapping")
	}
}

func (s *session) scalarString(d *def, k kv, field string) (string, bool) {
	if k.val.Kind != yaml.ScalarNode || k.val.ShortTag() == "!!null" {
		s.add(d.file, k.val.Line, d.name, field+" must be a string")
		return "", false
	}
	return k.val.Value, true
}

// schemaField converts input_schema or output_schema to JSON and checks it.
func (s *session) schemaField(d *def, field string) (json.RawMessage, bool) {
	k, ok := d.m[field]
	if !ok {
		return nil, false
	}
	if k.val.Kind != yaml.MappingNode {
		s.add(d.file, k.val.Line, d.name, field+" must be a mapping (a JSON Schema whose root is {type: object})")
		return nil, false
	}
	v, errLine, err := toJSON(k.val)
	if err != nil {
		s.add(d.file, errLine, d.name, field+": "+err.Error())
		return nil, false
	}
	raw, _ := json.Marshal(v)
	sm := s.pairs(d.file, d.name, field+": ", k.val)
	if t, ok := sm["type"]; ok && !(t.val.Kind == yaml.ScalarNode && t.val.Value == "object") {
		shown := t.val.Value
		if t.val.Kind != yaml.ScalarNode {
			b, _ := json.Marshal(must(toJSON(t.val)))
			shown = string(b)
		}
		s.add(d.file, t.val.Line, d.name, fmt.Sprintf("%s.type is %q: the root must be \"object\", because every provider wants an object of arguments", field, shown))
		return nil, false
	}
	if _, err := schema.Compile(raw); err != nil {
		s.add(d.file, k.val.Line, d.name, field+": "+err.Error())
		return nil, false
	}
	return raw, true
}

func must(v any, _ int, _ error) any { return v }

func (s *session) parseMetadata(d *def, n *yaml.Node, spec *tool.Spec) {
	if n.Kind != yaml.MappingNode {
		s.add(d.file, n.Line, d.name, "metadata must be a mapping")
		return
	}
	m := s.pairs(d.file, d.name, "metadata: ", n)
	s.unknownKeys(d.file, d.name, "metadata: ", m, metaKeys, metaHints)
	str := func(key string, set func(string)) {
		if k, ok := m[key]; ok {
			if v, ok := s.scalarString(d, k, "metadata."+key); ok {
				set(v)
			}
		}
	}
	list := func(key string, set func([]string)) {
		k, ok := m[key]
		if !ok {
			return
		}
		if k.val.Kind != yaml.SequenceNode {
			s.add(d.file, k.val.Line, d.name, fmt.Sprintf("metadata.%s must be a list of strings, such as [a, b]", key))
			return
		}
		var out []string
		for _, e := range k.val.Content {
			e = deref(e)
			if e.Kind != yaml.ScalarNode || e.ShortTag() == "!!null" {
				s.add(d.file, e.Line, d.name, fmt.Sprintf("metadata.%s must hold only strings", key))
				return
			}
			out = append(out, e.Value)
		}
		set(out)
	}
	boolean := func(where string, k kv, set func(bool)) {
		if k.val.Kind != yaml.ScalarNode || k.val.ShortTag() != "!!bool" {
			s.add(d.file, k.val.Line, d.name, fmt.Sprintf("%s is %q: write true or false", where, k.val.Value))
			return
		}
		set(k.val.Value == "true" || k.val.Value == "True" || k.val.Value == "TRUE")
	}
	str("version", func(v string) { spec.Version = v })
	str("category", func(v string) { spec.Category = v })
	list("tags", func(v []string) { spec.Tags = v })
	list("secrets", func(v []string) { spec.Secrets = v })
	if k, ok := m["risk"]; ok {
		if v, ok := s.scalarString(d, k, "metadata.risk"); ok {
			if r, err := tool.ParseRisk(v); err != nil {
				s.add(d.file, k.val.Line, d.name, fmt.Sprintf("metadata.risk is %q: use low, medium or high", v))
			} else {
				spec.Risk = r
			}
		}
	}
	if k, ok := m["requires_approval"]; ok {
		boolean("metadata.requires_approval", k, func(b bool) { spec.RequiresApproval = b })
	}
	list("allowed_modes", func(modes []string) {
		known := append(append([]string(nil), builtinModes...), s.l.Modes...)
		k := m["allowed_modes"]
		for i, mode := range modes {
			if contains(known, mode) {
				continue
			}
			msg := fmt.Sprintf("metadata.allowed_modes has unknown mode %q", mode)
			if sug := closest(mode, known); sug != "" {
				msg += fmt.Sprintf(": did you mean %q?", sug)
			} else {
				msg += ": known modes are " + strings.Join(known, ", ") + " (add others with Loader.Modes)"
			}
			s.add(d.file, deref(k.val.Content[i]).Line, d.name, msg)
		}
		spec.AllowedModes = modes
	})
	if k, ok := m["timeout"]; ok {
		v := k.val
		switch {
		case v.Kind != yaml.ScalarNode:
			s.add(d.file, v.Line, d.name, "metadata.timeout must be a duration such as \"30s\"")
		case v.ShortTag() == "!!int" || v.ShortTag() == "!!float":
			s.add(d.file, v.Line, d.name, fmt.Sprintf("metadata.timeout %s has no unit: write %q", v.Value, v.Value+"s"))
		default:
			dur, err := time.ParseDuration(v.Value)
			switch {
			case err != nil:
				s.add(d.file, v.Line, d.name, fmt.Sprintf("metadata.timeout %q is not a duration: write it like \"30s\", \"2m\" or \"1h30m\"", v.Value))
			case dur <= 0:
				s.add(d.file, v.Line, d.name, fmt.Sprintf("metadata.timeout %q must be positive: leave it out for the executor's default", v.Value))
			default:
				spec.Timeout = dur
			}
		}
	}
	if k, ok := m["rate_limit_per_hour"]; ok {
		n, err := strconv.Atoi(k.val.Value)
		if k.val.Kind != yaml.ScalarNode || k.val.ShortTag() != "!!int" || err != nil || n < 0 {
			s.add(d.file, k.val.Line, d.name, fmt.Sprintf("metadata.rate_limit_per_hour is %q: write a whole number of calls per hour, 0 for no limit", k.val.Value))
		} else {
			spec.RateLimitPerHour = n
		}
	}
	if k, ok := m["annotations"]; ok {
		if k.val.Kind != yaml.MappingNode {
			s.add(d.file, k.val.Line, d.name, "metadata.annotations must be a mapping")
			return
		}
		am := s.pairs(d.file, d.name, "metadata.annotations: ", k.val)
		s.unknownKeys(d.file, d.name, "metadata.annotations: ", am, annotationKeys, annotationHint)
		a := &spec.Annotations
		if t, ok := am["title"]; ok {
			if v, ok := s.scalarString(d, t, "metadata.annotations.title"); ok {
				a.Title = v
			}
		}
		for key, dst := range map[string]*bool{"read_only": &a.ReadOnly, "destructive": &a.Destructive, "idempotent": &a.Idempotent, "open_world": &a.OpenWorld} {
			if kv, ok := am[key]; ok {
				boolean("metadata.annotations."+key, kv, func(b bool) { *dst = b })
			}
		}
	}
}

// goImpl finds a go tool's implementation in the function table.
func (s *session) goImpl(d *def) tool.Tool {
	fn := d.name
	line := d.line
	if k, ok := d.m["implementation"]; ok {
		if k.val.Kind != yaml.MappingNode {
			s.add(d.file, k.val.Line, d.name, "implementation must be a mapping (function: name)")
			return nil
		}
		m := s.pairs(d.file, d.name, "implementation: ", k.val)
		s.unknownKeys(d.file, d.name, "implementation: ", m, []string{"function"}, map[string]string{
			"function_name": `use "function"`, "module": `go tools name a function of Loader.Funcs with "function"`,
		})
		if f, ok := m["function"]; ok {
			if v, ok := s.scalarString(d, f, "implementation.function"); ok {
				fn, line = v, f.val.Line
			} else {
				return nil
			}
		}
	}
	if fn == "" {
		return nil
	}
	t, ok := s.l.Funcs[fn]
	if ok && t != nil {
		return t
	}
	msg := fmt.Sprintf("go function %q is not in the function table", fn)
	if len(s.l.Funcs) == 0 {
		msg += ": the Loader has none; set Loader.Funcs (registry.FuncTable(...))"
	} else {
		keys := make([]string, 0, len(s.l.Funcs))
		for k := range s.l.Funcs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if sug := closest(fn, keys); sug != "" {
			msg += fmt.Sprintf(": did you mean %q?", sug)
		} else {
			msg += ": it has " + strings.Join(keys, ", ")
		}
	}
	s.add(d.file, line, d.name, msg)
	return nil
}

// build turns a checked definition into a tool.
func (s *session) build(d *def, spec tool.Spec, impl tool.Tool) tool.Tool {
	var t tool.Tool
	var implNode *yaml.Node
	if k, ok := d.m["implementation"]; ok {
		implNode = k.val
	}
	switch d.kind {
	case "go":
		if impl == nil {
			return nil
		}
		t = &goTool{spec: spec, impl: impl}
	default:
		var implJSON any = map[string]any{}
		if implNode != nil {
			if implNode.Kind != yaml.MappingNode {
				s.add(d.file, implNode.Line, d.name, "implementation must be a mapping")
				return nil
			}
			v, line, err := toJSON(implNode)
			if err != nil {
				s.add(d.file, line, d.name, "implementation: "+err.Error())
				return nil
			}
			implJSON = v
		}
		raw, _ := json.Marshal(implJSON)
		var err error
		t, err = s.l.Kinds[d.kind](spec, raw)
		if err != nil {
			s.kindErrors(d, implNode, err)
			return nil
		}
		if t == nil {
			s.add(d.file, d.line, d.name, fmt.Sprintf("the %q factory returned no tool", d.kind))
			return nil
		}
	}
	if c, ok := t.(tool.Checker); ok {
		if err := c.Check(); err != nil {
			s.add(d.file, d.line, d.name, err.Error())
			return nil
		}
	}
	if got := t.Spec().Name; got != d.name {
		s.add(d.file, d.line, d.name, fmt.Sprintf("the %q factory returned a tool named %q", d.kind, got))
		return nil
	}
	if err := tool.CheckName(d.name); err != nil {
		return nil
	}
	if in := t.Spec().InputSchema; len(in) > 0 {
		if _, err := schema.Compile(in); err != nil {
			s.add(d.file, d.line, d.name, "input schema: "+err.Error())
			return nil
		}
	}
	return t
}

// kindErrors reports a factory's error, one problem per joined error, each
// at the line of the field it names.
func (s *session) kindErrors(d *def, implNode *yaml.Node, err error) {
	errs := flatten(err, nil)
	line0 := d.line
	if k, ok := d.m["implementation"]; ok {
		line0 = k.key.Line
	}
	for _, e := range errs {
		line := line0
		msg := "implementation: " + e.Error()
		var fp interface{ FieldPath() string }
		if errors.As(e, &fp) && fp.FieldPath() != "" {
			p := fp.FieldPath()
			if n := find(implNode, p); n != nil {
				line = n.Line
			}
			msg = "implementation." + e.Error()
			if !strings.HasPrefix(e.Error(), fp.FieldPath()) {
				msg = "implementation." + p + ": " + e.Error()
			}
		}
		s.add(d.file, line, d.name, msg)
	}
}

// flatten expands errors joined with errors.Join, at any depth.
func flatten(err error, out []error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = flatten(e, out)
		}
		return out
	}
	if err != nil {
		out = append(out, err)
	}
	return out
}

// find returns the node at a dotted path ("query.state", "command.2"),
// or the deepest node found on the way; nil when even the first key is
// absent.
func find(n *yaml.Node, p string) *yaml.Node {
	n = deref(n)
	if n == nil || p == "" {
		return n
	}
	return findIn(n, p)
}

func findIn(n *yaml.Node, p string) *yaml.Node {
	head, rest, _ := strings.Cut(p, ".")
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == head {
				if rest == "" {
					return n.Content[i]
				}
				if c := findIn(deref(n.Content[i+1]), rest); c != nil {
					return c
				}
				return n.Content[i]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(head); err == nil && i >= 0 && i < len(n.Content) {
			if rest == "" {
				return n.Content[i]
			}
			if c := findIn(deref(n.Content[i]), rest); c != nil {
				return c
			}
			return n.Content[i]
		}
	}
	return nil
}

// toJSON converts a YAML node to a JSON-ready value, keeping integers exact
// and refusing what JSON cannot hold. On error it returns the line.
func toJSON(n *yaml.Node) (any, int, error) {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return nil, k.Line, errors.New("a key is not a string")
			}
			if k.Value == "<<" {
				return nil, k.Line, errors.New("YAML merge keys (<<) are not supported: write the keys out")
			}
			if _, dup := m[k.Value]; dup {
				return nil, k.Line, fmt.Errorf("key %q is given twice", k.Value)
			}
			v, line, err := toJSON(n.Content[i+1])
			if err != nil {
				return nil, line, err
			}
			m[k.Value] = v
		}
		return m, 0, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, line, err := toJSON(c)
			if err != nil {
				return nil, line, err
			}
			out = append(out, v)
		}
		return out, 0, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, 0, nil
		case "!!bool":
			return strings.EqualFold(n.Value, "true"), 0, nil
		case "!!int":
			i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
			if err != nil {
				if u, uerr := strconv.ParseUint(n.Value, 0, 64); uerr == nil {
					return json.Number(strconv.FormatUint(u, 10)), 0, nil
				}
				return nil, n.Line, fmt.Errorf("integer %s does not fit in 64 bits", n.Value)
			}
			return json.Number(strconv.FormatInt(i, 10)), 0, nil
		case "!!float":
			f, err := strconv.ParseFloat(n.Value, 64)
			if err != nil {
				return nil, n.Line, fmt.Errorf("%s is not a number JSON can hold (no .inf or .nan)", n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), 0, nil
		default: // !!str, !!timestamp, !!binary: keep the text
			return n.Value, 0, nil
		}
	}
	return nil, n.Line, errors.New("unsupported YAML node")
}

// goTool is a go-type definition: the file's spec over a Go implementation.
type goTool struct {
	spec tool.Spec
	impl tool.Tool
}

func (g *goTool) Spec() tool.Spec { return g.spec }

func (g *goTool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	return g.impl.Run(ctx, call)
}

func (g *goTool) Check() error {
	if c, ok := g.impl.(tool.Checker); ok {
		return c.Check()
	}
	return nil
}

func (g *goTool) Resources(args json.RawMessage) []tool.Resource {
	if r, ok := g.impl.(tool.ResourceDeclarer); ok {
		return r.Resources(args)
	}
	return nil
}
