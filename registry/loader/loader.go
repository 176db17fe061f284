// Package loader reads tool definitions from YAML or JSON files, a file
// system or a URL, and registers them in a registry.Registry. It is the
// only part of the SDK that reads tool files; the registry itself only
// stores, filters and exports tools, and each backend kind (tool/shell,
// tool/httptool, tool/mcptool) builds its own tools from the
// implementation block (a KindFunc).
package loader

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/origin"
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
	// DefaultLoadMaxBytes caps the size of one tool file: 1 MiB holds
	// hundreds of tools, and bounds what a hostile file costs before it is
	// refused (YAML nodes take about 60 times their bytes: about 130 MB
	// here). Raise Loader.MaxBytes for a larger file.
	DefaultLoadMaxBytes = 1 << 20
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
//	    input_schema:             # a JSON Schema whose root is an object (not for go)
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
// Type go is built in: the file gives the name, description, output schema
// and metadata, and Funcs gives the implementation and its input schema (a
// tool.Tool). What the file leaves out, or sets to null (~), comes from the
// Go tool. The file may tighten what the Go definition says of approval,
// risk, destructiveness, secret arguments, allowed modes, rate limit,
// category and timeout (an unset one judged executor.DefaultTimeout), not
// loosen it; it may take away, not make, the claims read_only, idempotent
// and the tag retry-safe; and a go tool may not take the name of another
// function of Funcs, which the program's rules by name were written for,
// nor may a tool of another type take the name of any.
// Every other type is a KindFunc in Kinds, which receives the
// implementation block as JSON and builds the tool itself: the loader knows
// no kind (shell.Kind parses implementation.command, httptool.Kind the
// request).
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
	s := p.Message
	if p.Tool != "" {
		s = fmt.Sprintf("tool %q: %s", p.Tool, s)
	}
	switch {
	case p.File != "" && p.Line > 0:
		s = fmt.Sprintf("%s:%d: %s", p.File, p.Line, s)
	case p.File != "":
		s = p.File + ": " + s
	}
	return s
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

// LoadFile reads the file at path and registers its tools in reg. A path
// that is not a regular file (a named pipe, a device, a directory, or a
// link to one) is a problem, and is not opened.
func (l *Loader) LoadFile(reg *registry.Registry, path string) error {
	s := l.session()
	if s.file = path; s.regular(os.Stat(path)) {
		f, err := os.Open(path)
		s.loadFile(path, f, err)
	}
	return s.commit(reg)
}

// LoadFS reads every file of fsys matching pattern (fs.Glob syntax, e.g.
// "tools/*.yaml"), in name order, and registers all their tools in reg, or
// none if any file has a problem. A match that is not a regular file (as
// LoadFile) is a problem, and is not opened.
func (l *Loader) LoadFS(reg *registry.Registry, fsys fs.FS, pattern string) error {
	s := l.session()
	names, err := fs.Glob(fsys, pattern)
	switch s.file = pattern; {
	case err != nil:
		s.add(0, "is not a valid pattern: "+err.Error())
	case len(names) == 0:
		s.add(0, "matches no files")
	}
	slices.Sort(names)
	for _, n := range names {
		if s.file = n; s.regular(fs.Stat(fsys, n)) {
			f, err := fsys.Open(n)
			s.loadFile(n, f, err)
		}
	}
	return s.commit(reg)
}

// regular reports whether the file s reads, of which fi is the Stat
// (links followed), may be opened: a regular file, or one that cannot be
// looked at (opening it says why). Else the problem says what it is. A
// directory an agent can write can hold a named pipe, or a link to one or
// to a terminal, where a tool file should be, and opening a pipe waits for
// a writer: the load, and a program that loads its tools at start, would
// never end.
func (s *session) regular(fi fs.FileInfo, err error) bool {
	if err != nil || fi.Mode().IsRegular() {
		return true
	}
	what := "not a file"
	switch m := fi.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m.IsDir():
		what = "a directory"
	}
	s.add(0, "is not a regular file ("+what+"): tool files are read whole, so a pipe, a device or a directory is not loaded")
	return false
}

// LoadURL fetches a tool file with an HTTP GET (bounded by Timeout and
// MaxBytes) and registers its tools in reg. The URL, and where it
// redirects, must be https, or plain http to a loopback host: a tool file
// defines what runs, and plain http lets anyone on the way rewrite it.
func (l *Loader) LoadURL(ctx context.Context, reg *registry.Registry, rawURL string) error {
	s := l.session()
	u, err := url.Parse(rawURL)
	// Named without its password; one that does not parse, up to its last "@" left out.
	if s.file = rawURL; err == nil {
		s.file = u.Redacted()
	} else if i := strings.LastIndexByte(rawURL, '@'); i >= 0 {
		s.file = "(userinfo hidden)" + rawURL[i:]
	}
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		s.add(0, "is not an http or https URL")
	case !secureURL(u):
		s.add(0, "is plain http, "+plainHTTP)
	default:
		ctx, cancel := context.WithTimeout(ctx, cmp.Or(max(l.Timeout, 0), DefaultLoadTimeout))
		defer cancel()
		s.fetch(ctx, u)
	}
	return s.commit(reg)
}

const plainHTTP = "which anyone on the way can rewrite: use https (plain http is for localhost only)"

// secureURL reports whether a tool file may be fetched from u: over https,
// or over plain http from a loopback host (a local test server), where no
// one on the way can rewrite the tools it defines.
func secureURL(u *url.URL) bool { return u.Scheme == "https" || origin.Loopback(u.Hostname()) }

func (s *session) fetch(ctx context.Context, u *url.URL) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		s.add(0, "cannot be requested: "+err.Error())
		return
	}
	req.Header.Set("Accept", "application/yaml, application/json;q=0.9, text/*;q=0.5")
	// Every hop is checked before it is requested, not only the last: the
	// answer to a plain http hop, anyone's, can send the fetch on to any
	// https server.
	c := *cmp.Or(s.l.Client, &http.Client{})
	next, refused := c.CheckRedirect, ""
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		switch {
		case !secureURL(r.URL):
			refused = "was redirected to " + r.URL.Redacted() + ", plain http, " + plainHTTP
			return errors.New(refused)
		case next != nil:
			return next(r, via)
		case len(via) >= 10: // net/http's own rule
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	resp, err := c.Do(req)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case refused != "":
		s.add(0, refused)
		return
	case err != nil:
		s.add(0, "cannot be fetched: "+err.Error())
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.add(0, "cannot be fetched: the server answered "+resp.Status)
		return
	}
	s.load(resp.Body, s.file)
}

// session is one load: the problems and tools found so far, and what it is
// reading: a file, one YAML document of it, one tool definition.
type session struct {
	l     *Loader
	probs []Problem
	tools []tool.Tool
	where map[string]Problem // the file, line and name of each tool's first definition
	file  string             // the file being read, which problems name
	count int                // the problems of keys and values found in its document
	item  *yaml.Node         // the tool definition being read
	name  string             // its name
}

func (l *Loader) session() *session { return &session{l: l, where: map[string]Problem{}} }

func (s *session) add(line int, msg string) {
	s.probs = append(s.probs, Problem{File: s.file, Line: line, Message: msg})
}

// loadFile loads an opened file, or says why it could not be opened.
func (s *session) loadFile(name string, f io.ReadCloser, err error) {
	if s.file = name; err != nil {
		s.add(0, "cannot be read: "+errText(err))
		return
	}
	defer f.Close()
	s.load(f, name)
}

func (s *session) load(r io.Reader, file string) {
	s.file = file
	limit := cmp.Or(max(s.l.MaxBytes, 0), DefaultLoadMaxBytes)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		s.add(0, "cannot be read: "+errText(err))
	case int64(len(data)) > limit:
		s.add(0, fmt.Sprintf("is larger than %d bytes: split it, or raise Loader.MaxBytes", limit))
	default:
		s.parse(data)
	}
}

// errText is err without an *fs.PathError's operation and path, which the problem names.
func errText(err error) string {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// commit registers every tool found, or none when there is a problem.
func (s *session) commit(reg *registry.Registry) error {
	s.file = "" // what is found here is about no file
	if reg == nil {
		s.add(0, "the registry is nil: pass the *registry.Registry to load into")
		s.tools = nil // none to look up
	}
	for _, t := range s.tools {
		if _, dup := reg.Lookup(t.Spec().Name); dup {
			p := s.where[t.Spec().Name]
			p.Message = "is already registered in the registry: rename it, or Remove the registered one first"
			s.probs = append(s.probs, p)
		}
	}
	if len(s.probs) == 0 {
		err := reg.Register(s.tools...)
		if err == nil {
			return nil
		}
		s.add(0, err.Error())
	}
	slices.SortStableFunc(s.probs, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return &LoadError{Problems: s.probs}
}

// The shape of a tool file. decode fills these with known fields only;
// what it cannot fill is a problem at its line. A *yaml.Node is read later.
type (
	fileDoc struct {
		Tools *yaml.Node `yaml:"tools"`
	}
	toolDef struct {
		Name           string     `yaml:"name"`
		Description    *yaml.Node `yaml:"description"`
		Type           string     `yaml:"type"`
		InputSchema    *yaml.Node `yaml:"input_schema"`
		OutputSchema   *yaml.Node `yaml:"output_schema"`
		Implementation *yaml.Node `yaml:"implementation"`
		Metadata       *yaml.Node `yaml:"metadata"`
	}
	// metadata is read onto a tool.Spec, each field pointing at its own:
	// a key the file leaves out keeps the value a go tool's Go definition
	// gave it.
	metadata struct {
		Version          *string        `yaml:"version"`
		Category         *string        `yaml:"category"`
		Tags             *[]string      `yaml:"tags"`
		Secrets          *[]string      `yaml:"secrets"`
		Risk             *tool.Risk     `yaml:"risk"`
		RequiresApproval *bool          `yaml:"requires_approval"`
		AllowedModes     *[]string      `yaml:"allowed_modes"`
		Timeout          *time.Duration `yaml:"timeout"`
		RateLimitPerHour *int           `yaml:"rate_limit_per_hour"`
		Annotations      annotations    `yaml:"annotations"`
	}
	annotations struct {
		Title       *string `yaml:"title"`
		ReadOnly    *bool   `yaml:"read_only"`
		Destructive *bool   `yaml:"destructive"`
		Idempotent  *bool   `yaml:"idempotent"`
		OpenWorld   *bool   `yaml:"open_world"`
	}
	goImplDef struct {
		Function *yaml.Node `yaml:"function"`
	}
)

// keyHints are, for each decoded type, the hints for keys people write by
// mistake; the known keys are the struct's own yaml tags.
var keyHints = map[reflect.Type]map[string]string{
	reflect.TypeFor[fileDoc](): {"tool": `use "tools", a list`, "specs": `use "tools"`},
	reflect.TypeFor[toolDef](): {
		"tool_type": `use "type"`, "kind": `use "type"`, "implementation_config": `use "implementation"`,
		"inputSchema": `use "input_schema"`, "parameters": `use "input_schema"`,
		"outputSchema": `use "output_schema"`, "requires_approval": `requires_approval goes under metadata`,
		"risk": `risk goes under metadata`, "category": `category goes under metadata`,
		"tags": `tags go under metadata`, "timeout": `timeout goes under metadata`,
	},
	reflect.TypeFor[metadata](): {
		"approval": `use requires_approval`, "modes": `use allowed_modes`, "rate_limit": `use rate_limit_per_hour`,
		"timeout_secs": `use timeout: 30s`, "timeout_sec": `use timeout: 30s`, "timeout_ms": `use timeout: 500ms`,
		"timeout_after": `use timeout`, "dangerous": `use risk: high (and requires_approval: true)`,
		"is_dangerous": `use risk: high (and requires_approval: true)`,
		"readOnlyHint": `annotations are read_only, destructive, idempotent, open_world, title`,
		"read_only":    `read_only goes under metadata.annotations`,
		"idempotent":   `idempotent goes under metadata.annotations`,
		"destructive":  `destructive goes under metadata.annotations`,
	},
	reflect.TypeFor[annotations](): {
		"readOnlyHint": `use read_only`, "destructiveHint": `use destructive`,
		"idempotentHint": `use idempotent`, "openWorldHint": `use open_world`,
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

func (s *session) parse(data []byte) {
	// JSON is YAML, but encoding/json says what is wrong with bad JSON in JSON's terms.
	if strings.EqualFold(path.Ext(s.file), ".json") {
		if err := json.Unmarshal(data, new(any)); err != nil {
			line := 0
			if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			}
			s.add(line, "is not valid JSON: "+err.Error())
			return
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for docs, start := 0, len(s.probs); ; docs++ {
		if len(s.probs)-start >= maxFileProblems {
			s.probs = s.probs[:start+maxFileProblems]
			s.add(0, fmt.Sprintf("stopped after %d problems: is it a tool file? fix these and load it again", maxFileProblems))
			return
		}
		var doc yaml.Node
		var be *yamlbound.Error
		switch err := dec.Decode(&doc); {
		case err == io.EOF:
			if docs == 0 {
				s.add(0, "is empty: it should hold a tools: list")
			}
			return
		case err != nil:
			line, msg := yamlError(err)
			s.add(line, "is not valid YAML: "+msg)
			return
		case errors.As(yamlbound.Check(&doc, 0, 0), &be): // alias bombs, depth: before anything expands them
			s.add(be.Line, be.Message)
			return
		case !s.mergeKeys(&doc) && len(doc.Content) > 0:
			s.count = 0
			s.parseDoc(deref(doc.Content[0]))
			if s.count > maxDecodeProblems {
				s.add(0, fmt.Sprintf("has %d more problems of keys and values after the first %d", s.count-maxDecodeProblems, maxDecodeProblems))
			}
		}
	}
}

// mergeKeys reports each YAML merge key (<<) of doc, the first maxDecodeProblems of
// them, and whether there was one: a merged value would be checked at the line of
// its anchor, or dropped, so the keys are to be written out.
func (s *session) mergeKeys(doc *yaml.Node) bool {
	found := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for i, c := range n.Content { // an alias's target is walked where it is defined
			if n.Kind == yaml.MappingNode && i%2 == 0 && c.ShortTag() == "!!merge" {
				if found++; found <= maxDecodeProblems {
					s.add(c.Line, "YAML merge keys (<<) are not supported: write the keys out")
				}
			}
			walk(c)
		}
	}
	walk(doc)
	if found > maxDecodeProblems {
		s.add(0, fmt.Sprintf("has %d more YAML merge keys after the first %d", found-maxDecodeProblems, maxDecodeProblems))
	}
	return found > 0
}

// yamlError extracts the line from a yaml.v3 error ("yaml: line 3: ...").
func yamlError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	n, rest, ok := strings.Cut(strings.TrimPrefix(msg, "line "), ": ")
	if line, err := strconv.Atoi(n); err == nil && ok && strings.HasPrefix(msg, "line ") {
		return line, rest
	}
	return 0, msg
}

// reporting counts a problem of keys and values and says whether it is one
// of the first maxDecodeProblems, which are reported: past them, a message
// that costs its path is not built.
func (s *session) reporting() bool {
	s.count++
	return s.count <= maxDecodeProblems
}

// at is the line of key in the tool's definition, or of the definition without it.
func (s *session) at(key string) int {
	_, line := lookup(s.item, key)
	return cmp.Or(line, s.item.Line)
}

// parseDoc checks a document's outline (a mapping with a non-empty tools
// list of mappings), then checks and builds every tool.
func (s *session) parseDoc(root *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		s.add(root.Line, "the top level must be a mapping with a tools: list")
		return
	}
	var fd fileDoc
	if !s.decode(root, &fd, nil) {
		return
	}
	list := fd.Tools
	switch {
	case list == nil:
		s.add(root.Line, "has no tools: list")
		return
	case list.Kind != yaml.SequenceNode:
		s.add(list.Line, "tools must be a list of tool definitions (each starting with \"- name: ...\")")
		return
	case len(list.Content) == 0:
		s.add(list.Line, "the tools: list is empty")
	}
	ok := true
	for i, item := range list.Content {
		if item = deref(item); item.Kind != yaml.MappingNode {
			s.add(item.Line, fmt.Sprintf("tools[%d] must be a mapping (name:, description:, type:, ...)", i))
			ok = false
		}
	}
	for i := 0; ok && i < len(list.Content); i++ {
		s.tool(i, deref(list.Content[i]))
	}
}

// decode fills *p, p being a pointer to one of the types above or to a
// field of one, from n, path being the path of n's key ("metadata.tags.1");
// a null leaves *p as it is, as if not written. It returns false when a
// mapping has a key twice (which value was meant is for the author to say)
// or a key that is not a string: the tool is not built.
func (s *session) decode(n *yaml.Node, p any, path *keyPath) bool {
	n = deref(n)
	if node, ok := p.(**yaml.Node); ok {
		*node = n
		return true
	}
	if n.ShortTag() == "!!null" {
		return true
	}
	msg := ""
	switch v := reflect.ValueOf(p).Elem(); v.Kind() {
	case reflect.Pointer: // a metadata field, which points at the spec's
		return s.decode(n, v.Interface(), path)
	case reflect.Struct:
		if n.Kind == yaml.MappingNode {
			return s.mapping(n, v, path)
		}
		msg = "must be a mapping"
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			v.Set(reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content)))
			ok := true
			for i, c := range n.Content {
				ok = s.decode(c, v.Index(i).Addr().Interface(), &keyPath{path, strconv.Itoa(i)}) && ok
			}
			return ok
		}
		msg = "must be a list of strings, such as [a, b]"
	default:
		msg = scalar(n, p)
	}
	if msg != "" && s.reporting() {
		s.add(n.Line, path.String()+" "+msg)
	}
	return true
}

// scalar reads a string, a bool, a count, a risk or a duration into *p, or
// says what n must be instead (after its path).
func scalar(n *yaml.Node, p any) string {
	isScalar := n.Kind == yaml.ScalarNode
	switch p := p.(type) {
	case *string:
		switch {
		case !isScalar:
			return "must be a string"
		case n.ShortTag() == "!!binary": // a reader of the file would not see what it says
			return "is !!binary: write the text itself"
		}
		*p = n.Value
	case *bool:
		if !isScalar || n.Decode(p) != nil {
			return fmt.Sprintf("is %q: write true or false", n.Value)
		}
	case *int: // 0.5 is not read as 0, which is no limit
		if !isScalar || n.ShortTag() != "!!int" || n.Decode(p) != nil {
			return fmt.Sprintf("is %q: write a whole number (0 for no limit)", n.Value)
		}
		if *p < 0 {
			return fmt.Sprintf("is %d: write a whole number of calls per hour, 0 for no limit", *p)
		}
	case *tool.Risk:
		risk, err := tool.ParseRisk(n.Value)
		switch {
		case !isScalar:
			return "must be a string"
		case err != nil:
			return fmt.Sprintf("is %q: use low, medium or high", n.Value)
		}
		*p = risk
	case *time.Duration:
		d, err := time.ParseDuration(n.Value)
		_, errWithUnit := time.ParseDuration(n.Value + "s")
		switch tag := n.ShortTag(); {
		case !isScalar:
			return "must be a duration such as \"30s\""
		case (tag == "!!int" || tag == "!!float") && errWithUnit == nil: // not .inf or 1e3
			return fmt.Sprintf("%s has no unit: write %q", n.Value, n.Value+"s")
		case err != nil:
			return fmt.Sprintf("%q is not a duration: write it like \"30s\", \"2m\" or \"1h30m\"", n.Value)
		case d <= 0:
			return fmt.Sprintf("%q must be positive: leave it out for the executor's default", n.Value)
		}
		*p = d
	}
	return ""
}

// keys reads the keys of mapping n, at path, in order; a key given twice,
// or one that is not a string, is a problem.
func (s *session) keys(n *yaml.Node, path *keyPath, read func(key, val *yaml.Node) bool) bool {
	ok, first := true, map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		line, dup := first[k.Value]
		if k.Kind == yaml.ScalarNode && !dup {
			first[k.Value] = k.Line
			ok = read(k, n.Content[i+1]) && ok
			continue
		}
		if ok = false; !s.reporting() {
			continue
		}
		msg := fmt.Sprintf("%q is given twice (first at line %d): keep the one you mean", k.Value, line)
		if k.Kind != yaml.ScalarNode {
			msg = "a key is not a string: write each key as text"
		}
		s.add(k.Line, path.in(msg))
	}
	return ok
}

// mapping fills struct v from mapping n, a field for each key its yaml tag names.
func (s *session) mapping(n *yaml.Node, v reflect.Value, path *keyPath) bool {
	keys := make([]string, v.NumField())
	for i := range keys {
		keys[i] = v.Type().Field(i).Tag.Get("yaml")
	}
	return s.keys(n, path, func(k, val *yaml.Node) bool {
		key := k.Value
		if f := slices.Index(keys, key); f >= 0 {
			return s.decode(val, v.Field(f).Addr().Interface(), &keyPath{path, key})
		}
		if !s.reporting() {
			return true
		}
		msg := fmt.Sprintf("unknown key %q", key)
		if h, ok := keyHints[v.Type()][key]; ok {
			msg += ": " + h
		} else {
			msg += didYouMean(key, slices.Sorted(slices.Values(keys)), ": known keys are %s")
		}
		s.add(k.Line, path.in(msg))
		return true
	})
}

// jsonValue reads n, at path, as a JSON value: objects, arrays, and
// scalars as the YAML decoder reads them (integers exactly, timestamps and
// binary data as their text), refusing what JSON cannot hold. Every
// problem counts in s.count, which its callers compare.
func (s *session) jsonValue(n *yaml.Node, path *keyPath) any {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		s.keys(n, path, func(k, val *yaml.Node) bool {
			m[k.Value] = s.jsonValue(val, &keyPath{path, k.Value})
			return true
		})
		return m
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, c := range n.Content {
			list[i] = s.jsonValue(c, &keyPath{path, strconv.Itoa(i)})
		}
		return list
	}
	var x any
	err := n.Decode(&x)
	if err != nil && s.reporting() {
		s.add(n.Line, path.in(strings.TrimPrefix(err.Error(), "yaml: ")+": write a value of that type, or leave the tag out"))
	}
	if f, ok := x.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) && s.reporting() {
		s.add(n.Line, fmt.Sprintf("%s is %s: not a number JSON can hold (no .inf or .nan)", path, n.Value))
	}
	if tag := n.ShortTag(); tag == "!!binary" || tag == "!!timestamp" {
		x = n.Value
	}
	return x
}

// tool checks one definition in one pass and builds its tool when nothing is wrong.
func (s *session) tool(idx int, item *yaml.Node) {
	s.item = item
	before := len(s.probs)
	defer func() { // what is found here is about this tool
		for i := before; i < len(s.probs); i++ {
			s.probs[i].Tool = s.name
		}
	}()
	var def toolDef
	ok := s.decode(item, &def, nil)
	if s.name = def.Name; strings.TrimSpace(s.name) == "" {
		s.name = ""
		s.add(item.Line, fmt.Sprintf("tools[%d] has no name: give it a name such as \"search\"", idx))
	} else {
		if err := tool.CheckName(s.name); err != nil {
			s.add(s.at("name"), err.Error())
		}
		if first, dup := s.where[s.name]; dup {
			s.add(s.at("name"), fmt.Sprintf("is defined twice (first at %s:%d): tool names must be unique", first.File, first.Line))
		} else {
			s.where[s.name] = Problem{File: s.file, Line: item.Line, Tool: s.name}
		}
	}
	if !ok {
		return
	}
	kind := s.kind(def.Type)
	if kind != "" && kind != "go" && s.name != "" && s.l.Funcs[s.name] != nil {
		// As a go tool may not take another function's name (goImpl):
		// the program's rules by name were written for that function.
		s.add(s.at("name"), fmt.Sprintf("is the name of go function %q of Loader.Funcs, but its type is %s: "+
			"what the program says of a tool by its name (retry.SafeTools, auth rules, approval lists) was written for that function "+
			"(give the tool another name, or make it type: go)", s.name, kind))
	}
	var impl tool.Tool
	// A command, an endpoint or a remote tool changes something outside the
	// program: medium unless a metadata.risk says otherwise. A go tool starts
	// from its Go definition.
	spec := tool.Spec{Risk: tool.RiskMedium}
	if kind == "go" {
		if impl = s.goImpl(def.Implementation); impl != nil {
			spec = impl.Spec()
		}
	}
	spec.Name = s.name
	if n := def.Description; n == nil {
		if kind != "go" || (impl != nil && spec.Description == "") {
			s.add(item.Line, "description is missing: tell the model what the tool does and when to use it")
		}
	} else if msg := scalar(n, &spec.Description); msg != "" {
		s.add(n.Line, "description "+msg) // not a string, or !!binary
	} else if n.ShortTag() == "!!null" || strings.TrimSpace(n.Value) == "" {
		s.add(n.Line, "description is empty: tell the model what the tool does and when to use it")
	}
	if impl != nil && def.InputSchema != nil { // the function was written for the values its own schema lets through
		s.add(s.at("input_schema"), fmt.Sprintf("input_schema is set, but go function %q takes its input schema from Go: a tool file may not replace it (leave input_schema out; change it in Go, or with tool.WithInputSchema)", impl.Spec().Name))
	}
	s.schema("input_schema", def.InputSchema, &spec.InputSchema)
	s.schema("output_schema", def.OutputSchema, &spec.OutputSchema)
	if len(spec.InputSchema) == 0 {
		spec.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if def.Metadata != nil && !s.metadata(def.Metadata, &spec) {
		return
	}
	if impl != nil {
		s.noLooser(impl.Spec(), spec, def.Metadata)
	}
	if n := def.Implementation; n != nil && n.Kind != yaml.MappingNode && kind != "go" {
		s.add(n.Line, "implementation must be a mapping")
	}
	if len(s.probs) > before || kind == "" || (kind == "go" && impl == nil) {
		return
	}
	if t := s.build(kind, def.Implementation, spec, impl); t != nil {
		s.tools = append(s.tools, t)
	}
}

// kind checks a definition's type: go, or a key of Loader.Kinds. It
// returns "" when the type is not known.
func (s *session) kind(kind string) string {
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(s.l.Kinds)), func(k string) bool {
		return k == "go" || s.l.Kinds[k] == nil
	})
	kinds := append([]string{"go"}, others...)
	switch _, line := lookup(s.item, "type"); {
	case line == 0:
		s.add(s.item.Line, "type is missing: set it to one of "+strings.Join(kinds, ", "))
	case slices.Contains(kinds, kind):
		return kind
	case slices.Contains([]string{"shell", "http", "mcp"}, kind):
		s.add(line, fmt.Sprintf("type %q has no factory in this Loader: add it to Loader.Kinds (for example \"http\": httptool.Kind())", kind))
	default:
		s.add(line, fmt.Sprintf("type %q is not known", kind)+didYouMean(kind, kinds, ": known types are %s"))
	}
	return ""
}

// schema converts input_schema or output_schema, if written, to JSON and
// sets *dst to it when it is a schema.
func (s *session) schema(field string, n *yaml.Node, dst *json.RawMessage) {
	if n == nil {
		return
	}
	if n.Kind != yaml.MappingNode {
		s.add(n.Line, field+" must be a mapping (a JSON Schema whose root is {type: object})")
		return
	}
	before := s.count
	v := s.jsonValue(n, &keyPath{key: field})
	if s.count > before {
		return
	}
	if t, ok := v.(map[string]any)["type"]; ok && t != "object" {
		shown, _ := json.Marshal(t)
		_, line := lookup(n, "type")
		s.add(line, fmt.Sprintf("%s.type is %s: the root must be \"object\", because every provider wants an object of arguments", field, shown))
		return
	}
	raw, _ := json.Marshal(v)
	if _, err := schema.Compile(raw); err != nil {
		s.add(n.Line, field+": "+err.Error())
		return
	}
	*dst = raw
}

// metadata reads the metadata block onto spec and checks the modes it allows.
func (s *session) metadata(n *yaml.Node, spec *tool.Spec) bool {
	a := &spec.Annotations
	m := metadata{
		Version: &spec.Version, Category: &spec.Category, Tags: &spec.Tags, Secrets: &spec.Secrets,
		Risk: &spec.Risk, RequiresApproval: &spec.RequiresApproval, AllowedModes: &spec.AllowedModes,
		Timeout: &spec.Timeout, RateLimitPerHour: &spec.RateLimitPerHour,
		Annotations: annotations{&a.Title, &a.ReadOnly, &a.Destructive, &a.Idempotent, &a.OpenWorld},
	}
	if !s.decode(n, &m, &keyPath{key: "metadata"}) {
		return false
	}
	modes, keyLine := lookup(n, "allowed_modes")
	if keyLine == 0 {
		return true
	}
	known := append([]string{tool.ModeNormal, tool.ModeAlert, tool.ModeDegraded, tool.ModeLockdown, tool.ModeRecovery}, s.l.Modes...)
	for i, mode := range spec.AllowedModes {
		if slices.Contains(known, mode) {
			continue
		}
		line := s.item.Line // of modes the file does not list (a go tool's own)
		if list := deref(modes); list.Kind == yaml.SequenceNode && i < len(list.Content) {
			line = list.Content[i].Line
		}
		s.add(line, fmt.Sprintf("metadata.allowed_modes has unknown mode %q", mode)+
			didYouMean(mode, known, ": known modes are %s (add others with Loader.Modes)"))
	}
	return true
}

// noLooser reports what a go tool's metadata loosens of its function's Go
// definition, whose author said what must be asked and how dangerous it
// is: a file (fetched, or in a directory an agent can write) may tighten
// that, not register the function as harmless under another name.
func (s *session) noLooser(fn, spec tool.Spec, md *yaml.Node) {
	check := func(loosened bool, key, says, fnIs string) {
		if _, line := lookup(md, key); loosened {
			s.add(cmp.Or(line, s.item.Line), fmt.Sprintf("metadata.%s %s, but go function %q %s: a tool file may tighten what the Go definition says, not loosen it", key, says, fn.Name, fnIs))
		}
	}
	check(fn.RequiresApproval && !spec.RequiresApproval, "requires_approval", "is false", "requires approval")
	fnRisk := "is " + fn.Risk.String()
	if fn.Risk == tool.RiskUnset { // judged medium, so that a forgotten risk never approves a call unasked
		fnRisk += ", judged medium (set it in Go: tool.WithRisk)"
	}
	check(spec.Risk.Effective() < fn.Risk.Effective(), "risk", "is "+spec.Risk.String(), fnRisk)
	check(fn.Annotations.Destructive && !spec.Annotations.Destructive, "annotations.destructive", "is false", "is destructive")
	check(fn.Annotations.OpenWorld && !spec.Annotations.OpenWorld, "annotations.open_world", "is false", "is open-world")
	unset := ""
	if fn.Timeout <= 0 { // runs under the executor's deadline, which the file's would replace
		fn.Timeout, unset = executor.DefaultTimeout, ", the executor's default (set it in Go: tool.WithTimeout)"
	}
	check(spec.Timeout > fn.Timeout, "timeout", "is "+spec.Timeout.String(), "stops after "+fn.Timeout.String()+unset)
	// Claims that a call is harmless to cache or to repeat are the Go
	// author's to make (Go cannot tell one left unsaid from one said false):
	// a delete served from the cache, a payment retried.
	check(spec.Annotations.ReadOnly && !fn.Annotations.ReadOnly, "annotations.read_only", "is true", "is not marked read-only (mark it in Go: tool.ReadOnly())")
	check(spec.Annotations.Idempotent && !fn.Annotations.Idempotent, "annotations.idempotent", "is true", "is not marked idempotent (mark it in Go: tool.WithAnnotations(tool.Annotations{Idempotent: true}))")
	check(spec.HasTag("retry-safe") && !fn.HasTag("retry-safe"), "tags", `adds "retry-safe"`, `is not tagged so (tag it in Go: tool.WithTags("retry-safe"))`) // retry.TagSafe
	// A secret argument left out is written whole in logs, audit records
	// and events; a mode, an hourly call or another category lets the
	// function run where its author kept it out (lockdown, past its rate
	// limit, under an auth rule that grants a category).
	notIn := func(a, b []string) int {
		return slices.IndexFunc(a, func(x string) bool { return !slices.Contains(b, x) })
	}
	if i := notIn(fn.Secrets, spec.Secrets); i >= 0 {
		check(true, "secrets", fmt.Sprintf("leaves out %q", fn.Secrets[i]), "keeps it secret")
	}
	if len(fn.AllowedModes) > 0 {
		fnIs := "runs in " + strings.Join(fn.AllowedModes, ", ") + " only"
		check(len(spec.AllowedModes) == 0, "allowed_modes", "allows every mode", fnIs)
		if i := notIn(spec.AllowedModes, fn.AllowedModes); i >= 0 {
			check(true, "allowed_modes", "allows "+spec.AllowedModes[i], fnIs)
		}
	}
	if fn.RateLimitPerHour > 0 && (spec.RateLimitPerHour <= 0 || spec.RateLimitPerHour > fn.RateLimitPerHour) {
		is := fmt.Sprintf("is %d", spec.RateLimitPerHour)
		if spec.RateLimitPerHour <= 0 {
			is += " (no limit)"
		}
		check(true, "rate_limit_per_hour", is, fmt.Sprintf("allows %d an hour", fn.RateLimitPerHour))
	}
	check(spec.Category != fn.Category, "category", fmt.Sprintf("is %q", spec.Category), fmt.Sprintf("is of category %q (set it in Go: tool.WithCategory)", fn.Category))
}

// goImpl finds a go tool's implementation in the function table: the
// function implementation.function names, or else the tool's own name.
func (s *session) goImpl(n *yaml.Node) tool.Tool {
	fn, line := s.name, s.item.Line
	var def goImplDef
	switch {
	case n == nil:
	case n.Kind != yaml.MappingNode:
		s.add(n.Line, "implementation must be a mapping (function: name)")
		return nil
	case !s.decode(n, &def, &keyPath{key: "implementation"}):
		return nil
	case def.Function == nil:
	case def.Function.Kind != yaml.ScalarNode || def.Function.ShortTag() == "!!null" || def.Function.Value == "":
		s.add(def.Function.Line, "implementation.function must name a function of Loader.Funcs")
		return nil
	default:
		fn, line = def.Function.Value, def.Function.Line
	}
	if fn == "" {
		return nil
	}
	if t := s.l.Funcs[fn]; t != nil {
		if fn != s.name && s.l.Funcs[s.name] != nil { // the program's rules by name were written for that function
			s.add(line, fmt.Sprintf("implementation.function is %q, but %q is the name of another go function of Loader.Funcs: "+
				"what the program says of a tool by its name (retry.SafeTools, auth rules, approval lists) would apply to %q "+
				"(name the tool %q, or a name no function has)", fn, s.name, fn, fn))
		}
		return t
	}
	msg := ": the Loader has none; set Loader.Funcs (loader.FuncTable(...))"
	if keys := slices.Sorted(maps.Keys(s.l.Funcs)); len(keys) > 0 {
		msg = didYouMean(fn, keys, ": it has %s")
	}
	s.add(line, fmt.Sprintf("go function %q is not in the function table", fn)+msg)
	return nil
}

// build makes the tool of a checked definition: a go tool, or what the
// kind's factory makes of the implementation block.
func (s *session) build(kind string, implNode *yaml.Node, spec tool.Spec, impl tool.Tool) tool.Tool {
	fail := func(msg string) tool.Tool {
		s.add(s.item.Line, msg)
		return nil
	}
	var t tool.Tool = &goTool{Tool: impl, spec: spec}
	if kind != "go" {
		var v any = map[string]any{}
		if before := s.count; implNode != nil {
			if v = s.jsonValue(implNode, &keyPath{key: "implementation"}); s.count > before {
				return nil
			}
		}
		raw, _ := json.Marshal(v)
		var err error
		if t, err = s.l.Kinds[kind](spec, raw); err != nil {
			s.kindErrors(implNode, err)
			return nil
		}
		if t == nil {
			return fail(fmt.Sprintf("the %q factory returned no tool", kind))
		}
	}
	if c, ok := t.(tool.Checker); ok {
		if err := c.Check(); err != nil {
			return fail(err.Error())
		}
	}
	if got := t.Spec().Name; got != s.name {
		return fail(fmt.Sprintf("the %q factory returned a tool named %q", kind, got))
	}
	if in := t.Spec().InputSchema; len(in) > 0 {
		if _, err := schema.Compile(in); err != nil {
			return fail("input schema: " + err.Error())
		}
	}
	return t
}

// kindErrors reports a factory's error, one problem per error joined with
// errors.Join, each at the line of the field it names.
func (s *session) kindErrors(implNode *yaml.Node, err error) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			s.kindErrors(implNode, e)
		}
		return
	}
	if err == nil || !s.reporting() { // capped like the problems of keys and values
		return
	}
	line, msg := s.at("implementation"), "implementation: "+err.Error()
	var fp interface{ FieldPath() string }
	if errors.As(err, &fp) && fp.FieldPath() != "" {
		p := fp.FieldPath()
		_, at := lookup(implNode, p)
		line = cmp.Or(at, line) // of the field, or of the deepest key on its path
		if msg = "implementation." + err.Error(); !strings.HasPrefix(err.Error(), p) {
			msg = "implementation." + p + ": " + err.Error()
		}
	}
	s.add(line, msg)
}

// goTool is a go-type definition: the file's spec over a Go implementation,
// which runs the calls.
type goTool struct {
	tool.Tool
	spec tool.Spec
}

func (g *goTool) Spec() tool.Spec { return g.spec }

// Unwrap returns the Go implementation, so that what looks at a tool's
// judgement of its calls (approval.AssessorOf) sees the implementation's.
func (g *goTool) Unwrap() tool.Tool { return g.Tool }

func (g *goTool) Check() error {
	if c, ok := g.Tool.(tool.Checker); ok {
		return c.Check()
	}
	return nil
}

func (g *goTool) Resources(args json.RawMessage) []tool.Resource {
	if r, ok := g.Tool.(tool.ResourceDeclarer); ok {
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

// didYouMean suggests the one of known closest to s, or lists them all
// with the format listed.
func didYouMean(s string, known []string, listed string) string {
	if sug := suggest.Closest(s, known); sug != "" {
		return fmt.Sprintf(": did you mean %q?", sug)
	}
	return fmt.Sprintf(listed, strings.Join(known, ", "))
}

// lookup walks dotted path p from mapping n (a list's elements by index) as
// far as it goes. It returns the value at its end as written (an alias is
// not followed), nil when the path is not all there, and the line of the
// key at its end or else of the deepest key on it that is there (0 when
// none is).
func lookup(n *yaml.Node, p string) (*yaml.Node, int) {
	line := 0
	for elem := range strings.SplitSeq(p, ".") {
		var next *yaml.Node
		switch n = deref(n); {
		case n == nil:
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content) && next == nil; i += 2 {
				if k := deref(n.Content[i]); k.Value == elem {
					next, line = n.Content[i+1], k.Line
				}
			}
		case n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(elem); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
				line = deref(next).Line
			}
		}
		if next == nil {
			return nil, line
		}
		n = next
	}
	return n, line
}

// keyPath is the dotted path of a value in a definition or a block (nil at
// the top), made into text only for a message: the paths of a block's
// values together can be far longer than the block (long keys over a long
// list).
type keyPath struct {
	up  *keyPath
	key string
}

func (p *keyPath) String() string {
	var keys []string
	for ; p != nil; p = p.up {
		keys = append(keys, p.key)
	}
	slices.Reverse(keys)
	return strings.Join(keys, ".")
}

// in puts the path, if any, before msg: "metadata: msg".
func (p *keyPath) in(msg string) string {
	if s := p.String(); s != "" {
		return s + ": " + msg
	}
	return msg
}
