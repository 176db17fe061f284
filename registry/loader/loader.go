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
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/internal/suggest"
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
	s.load(r, name)
	return s.commit(reg)
}

// LoadFile reads the file at path and registers its tools in reg.
func (l *Loader) LoadFile(reg *registry.Registry, path string) error {
	s := l.session()
	f, err := os.Open(path)
	s.loadFile(path, f, err)
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
		s.loadFile(n, f, err)
	}
	return s.commit(reg)
}

// LoadURL fetches a tool file with an HTTP GET (bounded by Timeout and
// MaxBytes) and registers its tools in reg.
func (l *Loader) LoadURL(ctx context.Context, reg *registry.Registry, rawURL string) error {
	s := l.session()
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Named without its password; one that does not parse, up to
		// its last "@" left out.
		name := rawURL
		if err == nil {
			name = u.Redacted()
		} else if i := strings.LastIndexByte(rawURL, '@'); i >= 0 {
			name = "(userinfo hidden)" + rawURL[i:]
		}
		s.add(name, 0, "", "is not an http or https URL")
		return s.commit(reg)
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLoadTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if body, err := l.get(ctx, u); err != nil {
		s.add(u.Redacted(), 0, "", err.Error())
	} else {
		defer body.Close()
		s.load(body, u.Redacted())
	}
	return s.commit(reg)
}

// get fetches u; its error says why not, in words that follow the URL.
func (l *Loader) get(ctx context.Context, u *url.URL) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, errors.New("cannot be requested: " + err.Error())
	}
	req.Header.Set("Accept", "application/yaml, application/json;q=0.9, text/*;q=0.5")
	client := l.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errors.New("cannot be fetched: " + err.Error())
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, errors.New("cannot be fetched: the server answered " + resp.Status)
	}
	return resp.Body, nil
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

// loadFile loads an opened file, or says why it could not be opened.
func (s *session) loadFile(name string, f io.ReadCloser, err error) {
	if err != nil {
		s.add(name, 0, "", "cannot be read: "+errText(err))
		return
	}
	defer f.Close()
	s.load(f, name)
}

// load reads one file, up to MaxBytes, and parses it.
func (s *session) load(r io.Reader, file string) {
	limit := s.l.MaxBytes
	if limit <= 0 {
		limit = DefaultLoadMaxBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		s.add(file, 0, "", "cannot be read: "+errText(err))
	case int64(len(data)) > limit:
		s.add(file, 0, "", fmt.Sprintf("is larger than %d bytes: split it, or raise Loader.MaxBytes", limit))
	default:
		s.parse(data, file)
	}
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

// The shape of a tool file. decoder fills these with known fields only;
// what it cannot fill is a problem at its line.
type (
	fileDoc struct {
		Tools *yaml.Node `yaml:"tools"`
	}
	toolDef struct {
		Name           string     `yaml:"name"`
		Description    string     `yaml:"description"`
		Type           string     `yaml:"type"`
		InputSchema    *yaml.Node `yaml:"input_schema"`
		OutputSchema   *yaml.Node `yaml:"output_schema"`
		Implementation *yaml.Node `yaml:"implementation"`
		Metadata       *metadata  `yaml:"metadata"`
	}
	metadata struct {
		Version          string      `yaml:"version"`
		Category         string      `yaml:"category"`
		Tags             []string    `yaml:"tags"`
		Secrets          []string    `yaml:"secrets"`
		Risk             *string     `yaml:"risk"`
		RequiresApproval bool        `yaml:"requires_approval"`
		AllowedModes     []string    `yaml:"allowed_modes"`
		Timeout          *yaml.Node  `yaml:"timeout"`
		RateLimitPerHour int         `yaml:"rate_limit_per_hour"`
		Annotations      annotations `yaml:"annotations"`
	}
	annotations struct {
		Title       string `yaml:"title"`
		ReadOnly    bool   `yaml:"read_only"`
		Destructive bool   `yaml:"destructive"`
		Idempotent  bool   `yaml:"idempotent"`
		OpenWorld   bool   `yaml:"open_world"`
	}
	goImplDef struct {
		Function string `yaml:"function"`
	}
)

// keyHints are, for each decoded type, the hints for keys people write by
// mistake; the known keys are the struct's own yaml tags.
var keyHints = map[reflect.Type]map[string]string{
	reflect.TypeFor[fileDoc](): {"tool": `use "tools", a list`, "specs": `use "tools"`},
	reflect.TypeFor[toolDef](): {
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
	},
	reflect.TypeFor[metadata](): {
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
	},
	reflect.TypeFor[annotations](): {
		"readOnlyHint":    `use read_only`,
		"destructiveHint": `use destructive`,
		"idempotentHint":  `use idempotent`,
		"openWorldHint":   `use open_world`,
	},
	reflect.TypeFor[goImplDef](): {
		"function_name": `use "function"`, "module": `go tools name a function of Loader.Funcs with "function"`,
	},
}

// maxDecodeProblems caps the problems of keys and values reported for one
// document: past it, a file is not a tool file with typos.
const maxDecodeProblems = 100

// maxFileProblems caps the problems reported for one file (its documents
// together): past it, the rest of the file is not read.
const maxFileProblems = 1000

var builtinModes = []string{tool.ModeNormal, tool.ModeAlert, tool.ModeDegraded, tool.ModeLockdown, tool.ModeRecovery}

// parse reads one file's definitions, one YAML document at a time.
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
	for docs, start := 0, len(s.probs); ; docs++ {
		if len(s.probs)-start >= maxFileProblems {
			s.probs = s.probs[:start+maxFileProblems]
			s.add(file, 0, "", fmt.Sprintf("stopped after %d problems: is it a tool file? fix these and load it again", maxFileProblems))
			return
		}
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			if docs == 0 {
				s.add(file, 0, "", "is empty: it should hold a tools: list")
			}
			return
		}
		if err != nil {
			line, msg := yamlError(err)
			s.add(file, line, "", "is not valid YAML: "+msg)
			return
		}
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
		if !s.mergeKeys(file, &doc) && len(doc.Content) > 0 {
			s.parseDoc(file, deref(doc.Content[0]))
		}
	}
}

// mergeKeys reports each YAML merge key (<<) of doc, the first
// maxDecodeProblems of them, and whether there was one: a merged value
// would be checked at the line of its anchor, or dropped, so the keys are
// to be written out.
func (s *session) mergeKeys(file string, doc *yaml.Node) bool {
	found := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.ShortTag() == "!!merge" {
					if found++; found <= maxDecodeProblems {
						s.add(file, k.Line, "", "YAML merge keys (<<) are not supported: write the keys out")
					}
				}
			}
		}
		for _, c := range n.Content { // an alias's target is walked where it is defined
			walk(c)
		}
	}
	walk(doc)
	if found > maxDecodeProblems {
		s.add(file, 0, "", fmt.Sprintf("has %d more YAML merge keys after the first %d", found-maxDecodeProblems, maxDecodeProblems))
	}
	return found > 0
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

// parseDoc checks a document's outline (a mapping with a non-empty tools
// list of mappings), then checks and builds every tool.
func (s *session) parseDoc(file string, root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		s.add(file, root.Line, "", "the top level must be a mapping with a tools: list")
		return
	}
	d := &decoder{s: s, file: file}
	defer d.close()
	var fd fileDoc
	if !d.decode(root, &fd, "") {
		return
	}
	list := fd.Tools
	switch {
	case list == nil:
		s.add(file, root.Line, "", "has no tools: list")
		return
	case list.Kind != yaml.SequenceNode:
		s.add(file, list.Line, "", "tools must be a list of tool definitions (each starting with \"- name: ...\")")
		return
	case len(list.Content) == 0:
		s.add(file, list.Line, "", "the tools: list is empty")
	}
	ok := true
	for i, item := range list.Content {
		if item = deref(item); item.Kind != yaml.MappingNode {
			s.add(file, item.Line, "", fmt.Sprintf("tools[%d] must be a mapping (name:, description:, type:, ...)", i))
			ok = false
		}
	}
	for i := 0; ok && i < len(list.Content); i++ {
		s.parseTool(d, i, deref(list.Content[i]))
	}
}

// decoder fills the typed structs from a document's nodes, reading values
// as the YAML decoder does, and reports what does not fit (an unknown key,
// a key given twice, a value of the wrong kind) at its line, with the
// key's dotted path: the first maxDecodeProblems of them.
type decoder struct {
	s     *session
	file  string
	tool  string // the tool the problems are about
	count int    // the problems found in the document
}

func (d *decoder) add(line int, msg string) {
	if d.count++; d.count <= maxDecodeProblems {
		d.s.add(d.file, line, d.tool, msg)
	}
}

// close notes the problems left out past the cap.
func (d *decoder) close() {
	if d.count > maxDecodeProblems {
		d.s.add(d.file, 0, "", fmt.Sprintf("has %d more problems of keys and values after the first %d", d.count-maxDecodeProblems, maxDecodeProblems))
	}
}

// decode fills *ptr (a pointer to one of the types above) from n.
func (d *decoder) decode(n *yaml.Node, ptr any, path string) bool {
	return d.value(n, reflect.ValueOf(ptr).Elem(), path)
}

// value fills v from n, path being the dotted path of n's key
// ("metadata.tags.1"). A *yaml.Node takes the node as it is. It returns
// false when a mapping has a key twice: which value was meant is for the
// author to say, so the rest is not read.
func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) bool {
	n = deref(n)
	if p, ok := v.Addr().Interface().(**yaml.Node); ok {
		*p = n
		return true
	}
	if n.ShortTag() == "!!null" {
		return true // the zero value, as the YAML decoder leaves it
	}
	kind := n.Kind
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return d.value(n, v.Elem(), path)
	case reflect.Struct:
		if kind == yaml.MappingNode {
			return d.mapping(n, v, path)
		}
	case reflect.Slice:
		if kind == yaml.SequenceNode {
			v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
			for i, c := range n.Content {
				if !d.value(c, v.Index(i), join(path, strconv.Itoa(i))) {
					return false
				}
			}
			return true
		}
	default: // strings, bools and ints, read by the YAML decoder
		if kind == yaml.ScalarNode && n.Decode(v.Addr().Interface()) == nil {
			return true
		}
	}
	msg := path + " must be a mapping"
	switch t := v.Type(); t.Kind() {
	case reflect.Bool:
		msg = fmt.Sprintf("%s is %q: write true or false", path, n.Value)
	case reflect.Int:
		msg = fmt.Sprintf("%s is %q: write a whole number (0 for no limit)", path, n.Value)
	case reflect.String:
		msg = path + " must be a string"
	case reflect.Slice:
		msg = path + " must be a list"
		if t.Elem().Kind() == reflect.String {
			msg += " of strings, such as [a, b]"
		}
	}
	d.add(n.Line, msg)
	return true
}

// mapping fills struct v from mapping n, field by field.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) bool {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, dup := first[k.Value]; dup {
			d.add(k.Line, fmt.Sprintf("%q is given twice (first at line %d)", k.Value, line))
			return false
		}
		first[k.Value] = k.Line
	}
	t := v.Type()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i] = t.Field(i).Tag.Get("yaml")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		f := slices.Index(keys, k.Value)
		if f >= 0 {
			if !d.value(n.Content[i+1], v.Field(f), join(path, k.Value)) {
				return false
			}
			continue
		}
		msg := fmt.Sprintf("unknown key %q", k.Value)
		if path != "" {
			msg = path + ": " + msg
		}
		known := slices.Sorted(slices.Values(keys))
		if h, ok := keyHints[t][k.Value]; ok {
			msg += ": " + h
		} else if sug := suggest.Closest(k.Value, known); sug != "" {
			msg += fmt.Sprintf(": did you mean %q?", sug)
		} else {
			msg += ": known keys are " + strings.Join(known, ", ")
		}
		d.add(k.Line, msg)
	}
	return true
}

// parseTool checks one definition in one pass and, when nothing is wrong,
// builds its tool.
func (s *session) parseTool(d *decoder, idx int, item *yaml.Node) {
	file, before := d.file, len(s.probs)
	at := func(p string) int {
		if _, n := lookup(item, p); n != nil {
			return n.Line
		}
		return item.Line
	}
	// The name comes from the node: with a duplicated name key the first
	// one names the tool, as it is the one a reader sees first.
	name := ""
	if _, n := lookup(item, "name"); n == nil || strings.TrimSpace(n.Value) == "" {
		s.add(file, item.Line, "", fmt.Sprintf("tools[%d] has no name: give it a name such as \"search\"", idx))
	} else {
		name = n.Value
		if err := tool.CheckName(name); err != nil {
			s.add(file, n.Line, name, err.Error())
		}
		if prev, dup := s.seen[name]; dup {
			s.add(file, n.Line, name, fmt.Sprintf("is defined twice (first at %s:%d): tool names must be unique", prev.file, prev.line))
		}
	}
	d.tool = name
	var def toolDef
	if !d.decode(item, &def, "") {
		return
	}
	placeholder := &loaded{file: file, line: item.Line, name: name}
	if _, dup := s.seen[name]; name != "" && !dup {
		s.seen[name] = placeholder
	}

	kinds := s.kindNames()
	kind := def.Type
	switch {
	case !has(item, "type"):
		s.add(file, item.Line, name, "type is missing: set it to one of "+strings.Join(kinds, ", "))
	case !slices.Contains(kinds, kind):
		msg := fmt.Sprintf("type %q is not known", kind)
		switch {
		case slices.Contains([]string{"shell", "http", "mcp"}, kind):
			msg = fmt.Sprintf("type %q has no factory in this Loader: add it to Loader.Kinds (for example \"http\": httptool.Kind())", kind)
		case suggest.Closest(kind, kinds) != "":
			msg += fmt.Sprintf(": did you mean %q?", suggest.Closest(kind, kinds))
		default:
			msg += ": known types are " + strings.Join(kinds, ", ")
		}
		s.add(file, at("type"), name, msg)
		kind = ""
	}

	var spec tool.Spec
	var impl tool.Tool
	if kind == "go" {
		if impl = s.goImpl(d, item, def.Implementation); impl != nil {
			spec = impl.Spec()
		}
	}
	spec.Name = name
	switch _, n := lookup(item, "description"); {
	case n != nil:
		if n.ShortTag() == "!!null" || (n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) == "") {
			s.add(file, n.Line, name, "description is empty: tell the model what the tool does and when to use it")
		}
		spec.Description = def.Description
	case kind != "go" || (impl != nil && spec.Description == ""):
		s.add(file, item.Line, name, "description is missing: tell the model what the tool does and when to use it")
	}
	if raw, ok := s.schemaField(file, name, "input_schema", def.InputSchema); ok {
		spec.InputSchema = raw
	} else if len(spec.InputSchema) == 0 {
		spec.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if raw, ok := s.schemaField(file, name, "output_schema", def.OutputSchema); ok {
		spec.OutputSchema = raw
	}
	if kind != "go" {
		// A command, an endpoint or a remote tool changes something outside
		// the program: medium unless a metadata.risk says otherwise.
		spec.Risk = tool.RiskMedium
	}
	if def.Metadata != nil {
		s.applyMetadata(file, name, item, def.Metadata, &spec)
	}
	if n := def.Implementation; n != nil && n.Kind != yaml.MappingNode && kind != "go" {
		s.add(file, n.Line, name, "implementation must be a mapping")
	}
	if len(s.probs) > before || kind == "" {
		return
	}
	if t := s.build(file, name, item, kind, def.Implementation, spec, impl); t != nil {
		placeholder.tool = t
		s.defs = append(s.defs, placeholder)
	}
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

// schemaField converts input_schema or output_schema to JSON and checks it.
func (s *session) schemaField(file, name, field string, n *yaml.Node) (json.RawMessage, bool) {
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		s.add(file, n.Line, name, field+" must be a mapping (a JSON Schema whose root is {type: object})")
		return nil, false
	}
	v, errLine, err := toJSON(n)
	if err != nil {
		s.add(file, errLine, name, field+": "+err.Error())
		return nil, false
	}
	if t, ok := v.(map[string]any)["type"]; ok && t != "object" {
		shown, _ := json.Marshal(t)
		if str, ok := t.(string); ok {
			shown = []byte(str)
		}
		_, tn := lookup(n, "type")
		s.add(file, tn.Line, name, fmt.Sprintf("%s.type is %q: the root must be \"object\", because every provider wants an object of arguments", field, shown))
		return nil, false
	}
	raw, _ := json.Marshal(v)
	if _, err := schema.Compile(raw); err != nil {
		s.add(file, n.Line, name, field+": "+err.Error())
		return nil, false
	}
	return raw, true
}

// applyMetadata checks the values the decoder could not judge and copies
// the metadata into spec.
func (s *session) applyMetadata(file, name string, item *yaml.Node, m *metadata, spec *tool.Spec) {
	at := func(key string) int {
		_, n := lookup(item, "metadata."+key)
		return n.Line
	}
	// A key the file leaves out keeps the value a go tool's Go definition
	// gave it.
	a := &spec.Annotations
	for key, set := range map[string]func(){
		"version":                 func() { spec.Version = m.Version },
		"category":                func() { spec.Category = m.Category },
		"tags":                    func() { spec.Tags = m.Tags },
		"secrets":                 func() { spec.Secrets = m.Secrets },
		"requires_approval":       func() { spec.RequiresApproval = m.RequiresApproval },
		"allowed_modes":           func() { spec.AllowedModes = m.AllowedModes },
		"rate_limit_per_hour":     func() { spec.RateLimitPerHour = max(m.RateLimitPerHour, 0) },
		"annotations.title":       func() { a.Title = m.Annotations.Title },
		"annotations.read_only":   func() { a.ReadOnly = m.Annotations.ReadOnly },
		"annotations.destructive": func() { a.Destructive = m.Annotations.Destructive },
		"annotations.idempotent":  func() { a.Idempotent = m.Annotations.Idempotent },
		"annotations.open_world":  func() { a.OpenWorld = m.Annotations.OpenWorld },
	} {
		if has(item, "metadata."+key) {
			set()
		}
	}
	if m.Risk != nil {
		if r, err := tool.ParseRisk(*m.Risk); err != nil {
			s.add(file, at("risk"), name, fmt.Sprintf("metadata.risk is %q: use low, medium or high", *m.Risk))
		} else {
			spec.Risk = r
		}
	}
	known := append(slices.Clone(builtinModes), s.l.Modes...)
	for i, mode := range m.AllowedModes {
		if slices.Contains(known, mode) {
			continue
		}
		msg := fmt.Sprintf("metadata.allowed_modes has unknown mode %q", mode)
		if sug := suggest.Closest(mode, known); sug != "" {
			msg += fmt.Sprintf(": did you mean %q?", sug)
		} else {
			msg += ": known modes are " + strings.Join(known, ", ") + " (add others with Loader.Modes)"
		}
		s.add(file, at("allowed_modes."+strconv.Itoa(i)), name, msg)
	}
	if m.RateLimitPerHour < 0 {
		s.add(file, at("rate_limit_per_hour"), name, fmt.Sprintf("metadata.rate_limit_per_hour is %d: write a whole number of calls per hour, 0 for no limit", m.RateLimitPerHour))
	}
	if v := m.Timeout; v != nil {
		switch {
		case v.Kind != yaml.ScalarNode:
			s.add(file, v.Line, name, "metadata.timeout must be a duration such as \"30s\"")
		case v.ShortTag() == "!!int" || v.ShortTag() == "!!float":
			s.add(file, v.Line, name, fmt.Sprintf("metadata.timeout %s has no unit: write %q", v.Value, v.Value+"s"))
		default:
			dur, err := time.ParseDuration(v.Value)
			switch {
			case err != nil:
				s.add(file, v.Line, name, fmt.Sprintf("metadata.timeout %q is not a duration: write it like \"30s\", \"2m\" or \"1h30m\"", v.Value))
			case dur <= 0:
				s.add(file, v.Line, name, fmt.Sprintf("metadata.timeout %q must be positive: leave it out for the executor's default", v.Value))
			default:
				spec.Timeout = dur
			}
		}
	}
}

// goImpl finds a go tool's implementation in the function table: the
// function implementation.function names, or else the tool's own name.
func (s *session) goImpl(d *decoder, item, n *yaml.Node) tool.Tool {
	fn, line := d.tool, item.Line
	if n != nil {
		var def goImplDef
		if !d.decode(n, &def, "implementation") || n.Kind != yaml.MappingNode {
			return nil
		}
		if k, v := lookup(n, "function"); k != nil {
			if v.Kind == yaml.ScalarNode && def.Function == "" {
				d.s.add(d.file, k.Line, d.tool, "implementation.function is empty: name a function of Loader.Funcs")
			}
			if def.Function == "" {
				return nil
			}
			fn, line = def.Function, v.Line
		}
	}
	if fn == "" {
		return nil
	}
	if t := s.l.Funcs[fn]; t != nil {
		return t
	}
	msg := fmt.Sprintf("go function %q is not in the function table", fn)
	keys := slices.Sorted(maps.Keys(s.l.Funcs))
	switch sug := suggest.Closest(fn, keys); {
	case len(keys) == 0:
		msg += ": the Loader has none; set Loader.Funcs (loader.FuncTable(...))"
	case sug != "":
		msg += fmt.Sprintf(": did you mean %q?", sug)
	default:
		msg += ": it has " + strings.Join(keys, ", ")
	}
	s.add(d.file, line, d.tool, msg)
	return nil
}

// build turns a checked definition into a tool.
func (s *session) build(file, name string, item *yaml.Node, kind string, implNode *yaml.Node, spec tool.Spec, impl tool.Tool) tool.Tool {
	var t tool.Tool
	if kind == "go" {
		t = &goTool{spec: spec, impl: impl}
	} else {
		var implJSON any = map[string]any{}
		if implNode != nil {
			v, line, err := toJSON(implNode)
			if err != nil {
				s.add(file, line, name, "implementation: "+err.Error())
				return nil
			}
			implJSON = v
		}
		raw, _ := json.Marshal(implJSON)
		var err error
		if t, err = s.l.Kinds[kind](spec, raw); err != nil {
			s.kindErrors(file, name, item, err)
			return nil
		}
		if t == nil {
			s.add(file, item.Line, name, fmt.Sprintf("the %q factory returned no tool", kind))
			return nil
		}
	}
	if c, ok := t.(tool.Checker); ok {
		if err := c.Check(); err != nil {
			s.add(file, item.Line, name, err.Error())
			return nil
		}
	}
	if got := t.Spec().Name; got != name {
		s.add(file, item.Line, name, fmt.Sprintf("the %q factory returned a tool named %q", kind, got))
		return nil
	}
	if in := t.Spec().InputSchema; len(in) > 0 {
		if _, err := schema.Compile(in); err != nil {
			s.add(file, item.Line, name, "input schema: "+err.Error())
			return nil
		}
	}
	return t
}

// kindErrors reports a factory's error, one problem per joined error, each
// at the line of the field it names.
func (s *session) kindErrors(file, name string, item *yaml.Node, err error) {
	line0 := item.Line
	if k, _ := lookup(item, "implementation"); k != nil {
		line0 = k.Line
	}
	for _, e := range flatten(err, nil) {
		line := line0
		msg := "implementation: " + e.Error()
		var fp interface{ FieldPath() string }
		if errors.As(e, &fp) && fp.FieldPath() != "" {
			p := fp.FieldPath()
			// The line of the field, or of the deepest key on its path.
			for q := "implementation." + p; ; {
				if k, _ := lookup(item, q); k != nil {
					line = k.Line
					break
				}
				i := strings.LastIndexByte(q, '.')
				if i < 0 {
					break
				}
				q = q[:i]
			}
			msg = "implementation." + e.Error()
			if !strings.HasPrefix(e.Error(), p) {
				msg = "implementation." + p + ": " + e.Error()
			}
		}
		s.add(file, line, name, msg)
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

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// lookup returns the node at a dotted path of mapping keys and list
// indexes ("metadata.allowed_modes.1") and the node naming it (the key, or
// the list element itself), the first of repeated keys, or nils when the
// path is not all there.
func lookup(n *yaml.Node, p string) (key, val *yaml.Node) {
	for elem := range strings.SplitSeq(p, ".") {
		n = deref(n)
		key, val = nil, nil
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content) && val == nil; i += 2 {
				if n.Content[i].Value == elem {
					key, val = n.Content[i], n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(elem); err == nil && i >= 0 && i < len(n.Content) {
				key, val = n.Content[i], n.Content[i]
			}
		}
		if val == nil {
			return nil, nil
		}
		n = val
	}
	return key, deref(n)
}

// has says whether the file writes the key at path p.
func has(n *yaml.Node, p string) bool {
	k, _ := lookup(n, p)
	return k != nil
}

// join adds a key to a dotted path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
