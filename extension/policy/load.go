package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolbelt-go/toolbelt/internal/yamlbound"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

// LoadError is one problem found in a governance file: where it is and
// what is wrong. Load, Parse and Read return all of them, joined with
// errors.Join; errors.As finds the first.
type LoadError struct {
	File  string // the file name (or the name given with WithFilename)
	Line  int    // 1-based; 0 when unknown
	Field string // the dotted path of the offending field ("tools.write_file.allowed_in_modes")
	Msg   string // what is wrong and how to fix it
}

// Error formats as "file:line: field: message".
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// MaxFileBytes bounds a governance file.
const MaxFileBytes = 4 << 20

// Known keys, for "unknown field" errors and their suggestions. Aliases
// (allowed_modes for allowed_in_modes, ...) are accepted.
var (
	rootKeys   = []string{"version", "global", "tools"}
	globalKeys = []string{"mode", "modes", "path_fields", "allowed_paths", "forbidden_paths", "max_arg_bytes", "max_field_bytes"}
	toolKeys   = []string{"category", "description", "allowed_in_modes", "requires_approval_in_modes", "forbidden_in_modes",
		"path_fields", "allowed_paths", "forbidden_paths", "max_arg_bytes", "max_field_bytes", "max_file_size_mb", "content_field"}
	keyAliases = map[string]string{
		"allowed_modes":           "allowed_in_modes",
		"approval_modes":          "requires_approval_in_modes",
		"requires_approval_modes": "requires_approval_in_modes",
		"forbidden_modes":         "forbidden_in_modes",
		"denied_paths":            "forbidden_paths",
		"deny_paths":              "forbidden_paths",
		"allow_paths":             "allowed_paths",
	}
)

type loader struct {
	file  string
	env   func(string) (string, bool)
	modes []string // known modes, lowercase
	errs  []error
}

func (l *loader) errf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	l.errs = append(l.errs, &LoadError{File: l.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

// fields walks a mapping, reporting duplicate and unknown keys; fn gets
// the canonical key.
func (l *loader) fields(n *yaml.Node, field string, known []string, fn func(key string, k, v *yaml.Node)) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		l.errf(n, field, "want a mapping of keys (%s), got %s", strings.Join(known, ", "), kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		key := k.Value
		if a, ok := keyAliases[key]; ok && slices.Contains(known, a) {
			key = a
		}
		if first, dup := seen[key]; dup {
			l.errf(k, join(field, k.Value), "duplicate key (first set at line %d): keep one", first)
			continue
		}
		seen[key] = k.Line
		if known != nil && !slices.Contains(known, key) {
			l.errf(k, field, "unknown field %q%s", k.Value, orList(didYouMean(k.Value, known), known))
			continue
		}
		fn(key, k, v)
	}
}

func orList(hint string, known []string) string {
	if hint != "" {
		return hint
	}
	return ": known fields are " + strings.Join(known, ", ")
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// strs reads a scalar or a list of scalars.
func (l *loader) strs(n *yaml.Node, field string) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return []string{n.Value}
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for i, c := range n.Content {
			c = resolve(c)
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				l.errf(c, fmt.Sprintf("%s[%d]", field, i), "want a string, got %s", kindName(c))
				continue
			}
			out = append(out, c.Value)
		}
		return out
	}
	l.errf(n, field, "want a list of strings, got %s", kindName(n))
	return nil
}

func (l *loader) modeList(n *yaml.Node, field string) modeSet {
	var set modeSet
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	l.strs(n, field) // reports shape errors
	for _, c := range items {
		c = resolve(c)
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
			continue // reported by strs
		}
		m := strings.ToLower(strings.TrimSpace(c.Value))
		if !slices.Contains(l.modes, m) {
			f := field
			hint := didYouMean(m, l.modes)
			if hint == "" {
				hint = ": known modes are " + strings.Join(l.modes, ", ") + " (declare others in global.modes)"
			}
			l.errf(c, f, "unknown mode %q%s", c.Value, hint)
			continue
		}
		set = set.add(m)
	}
	return set
}

var sizeRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$`)

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
}

// size reads a positive byte count: an integer (times unit) or a string
// with a unit ("64KiB", "10MB", "1.5MiB").
func (l *loader) size(n *yaml.Node, field string, unit int64) int64 {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.errf(n, field, "want a size such as 65536 or \"10MiB\", got %s", kindName(n))
		return 0
	}
	m := sizeRE.FindStringSubmatch(n.Value)
	mult, ok := 0.0, false
	if m != nil {
		mult, ok = sizeUnits[strings.ToLower(m[2])]
	}
	if !ok {
		l.errf(n, field, "%q is not a size: write a number of bytes, or a number with a unit (B, KB, KiB, MB, MiB, GB, GiB)", n.Value)
		return 0
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	v := int64(f * mult * float64(unit))
	if v <= 0 {
		l.errf(n, field, "size must be positive, got %q: remove the field for no limit", n.Value)
		return 0
	}
	return v
}

var envRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

func (l *loader) globs(n *yaml.Node, field string) []pathRule {
	var out []pathRule
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	l.strs(n, field) // reports shape errors
	for _, c := range items {
		c = resolve(c)
		if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
			continue
		}
		f := field
		p := c.Value
		var missing []string
		p = envRE.ReplaceAllStringFunc(p, func(s string) string {
			name := strings.Trim(s, "${}")
			v, ok := l.env(name)
			if !ok || v == "" {
				missing = append(missing, name)
			}
			return sandbox.EscapeGlob(v)
		})
		if len(missing) > 0 {
			l.errf(c, f, "pattern %q uses $%s, which is not set in the environment: set it, or write the path out", c.Value, missing[0])
			continue
		}
		if strings.HasPrefix(p, "~/") || p == "~" {
			home, ok := l.env("HOME")
			if !ok || home == "" {
				l.errf(c, f, "pattern %q starts with ~ but $HOME is not set", c.Value)
				continue
			}
			p = sandbox.EscapeGlob(home) + p[1:]
		}
		g, err := compileGlob(p)
		if err != nil {
			l.errf(c, f, "%v", err)
			continue
		}
		out = append(out, pathRule{glob: g, source: c.Value, rule: field, line: c.Line})
	}
	return out
}

func (l *loader) parse(data []byte) *config {
	cfg := &config{file: l.file, mode: "normal", tools: map[string]*toolRule{}}
	l.modes = slices.Clone(builtinModes)
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg // an empty file is an empty policy
		}
		l.errs = append(l.errs, syntaxError(l.file, err))
		return cfg
	}
	if err := yamlbound.Check(&doc, 0, 0); err != nil {
		var be *yamlbound.Error
		if errors.As(err, &be) {
			l.errs = append(l.errs, &LoadError{File: l.file, Line: be.Line, Msg: be.Message})
		} else {
			l.errs = append(l.errs, &LoadError{File: l.file, Msg: err.Error()})
		}
		return cfg
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = resolve(root.Content[0])
	}
	var global, tools *yaml.Node
	l.fields(root, "", rootKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			if v.Value != "1" {
				l.errf(v, "version", "unsupported version %q: this SDK reads version 1", v.Value)
			}
		case "global":
			global = v
		case "tools":
			tools = v
		}
	})
	cfg.global.name = "global"
	if global != nil {
		// Declared modes first: tool rules may use them.
		var modeNode *yaml.Node
		l.fields(global, "global", globalKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "modes":
				for _, m := range l.strs(v, "global.modes") {
					m = strings.ToLower(strings.TrimSpace(m))
					if m == "" || slices.Contains(l.modes, m) {
						continue
					}
					l.modes = append(l.modes, m)
				}
			case "mode":
				modeNode = v
			case "path_fields":
				cfg.pathFields = l.strs(v, "global.path_fields")
			default:
				l.common(&cfg.global, key, k, v, "global")
			}
		})
		if modeNode != nil {
			if s := l.modeList(modeNode, "global.mode"); len(s) == 1 {
				cfg.mode = s[0]
			} else if len(s) > 1 {
				l.errf(modeNode, "global.mode", "want one mode, got %d", len(s))
			}
		}
	}
	cfg.modes = l.modes
	if tools != nil {
		l.fields(tools, "tools", nil, func(name string, k, v *yaml.Node) {
			tr := &toolRule{name: "tools." + name, tool: name, line: k.Line, contentField: "content"}
			var maxFile *yaml.Node
			l.fields(v, tr.name, toolKeys, func(key string, kk, vv *yaml.Node) {
				f := join(tr.name, kk.Value) // as written, aliases included
				switch key {
				case "category", "description":
					if vv.Kind != yaml.ScalarNode {
						l.errf(vv, f, "want a string, got %s", kindName(vv))
					}
				case "allowed_in_modes":
					tr.allowed, tr.allowedLine = l.modeList(vv, f), vv.Line
				case "requires_approval_in_modes":
					tr.approval = l.modeList(vv, f)
				case "forbidden_in_modes":
					tr.forbidden, tr.forbiddenLine = l.modeList(vv, f), vv.Line
				case "path_fields":
					tr.pathFields = l.strs(vv, f)
					tr.pathFieldsSet = true
					tr.pathFieldsLine = vv.Line
				case "max_file_size_mb":
					maxFile = vv
				case "content_field":
					if vv.Kind != yaml.ScalarNode || vv.Value == "" {
						l.errf(vv, f, "want the name of an argument, got %s", kindName(vv))
					} else {
						tr.contentField = vv.Value
					}
				default:
					l.common(tr, key, kk, vv, tr.name)
				}
			})
			if maxFile != nil {
				if s := l.size(maxFile, tr.name+".max_file_size_mb", 1<<20); s > 0 {
					tr.setFieldMax(tr.contentField, s, tr.name+".max_file_size_mb")
				}
			}
			for _, m := range tr.forbidden {
				if tr.allowed.has(m) || tr.approval.has(m) {
					l.errf(v, tr.name, "mode %q is both forbidden and allowed: remove it from one list", m)
				}
			}
			cfg.tools[name] = tr
			cfg.order = append(cfg.order, name)
		})
	}
	return cfg
}

// common reads the fields tools and global share.
func (l *loader) common(r *toolRule, key string, k, v *yaml.Node, scope string) {
	f := join(scope, k.Value)
	switch key {
	case "allowed_paths":
		r.allowedPaths = l.globs(v, f)
	case "forbidden_paths":
		r.forbiddenPaths = l.globs(v, f)
	case "max_arg_bytes":
		r.maxArgBytes, r.maxArgLine = l.size(v, f, 1), v.Line
	case "max_field_bytes":
		l.fields(v, f, nil, func(name string, _, vv *yaml.Node) {
			if s := l.size(vv, join(f, name), 1); s > 0 {
				r.setFieldMax(name, s, f)
			}
		})
	}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func syntaxError(file string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &LoadError{File: file, Line: line, Msg: "not valid YAML: " + m[2]}
	}
	return &LoadError{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// Load reads a governance file from path. Errors name the file, the line,
// the field and what is wrong.
func Load(path string, opts ...Option) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return Parse(data, append([]Option{WithFilename(path)}, opts...)...)
}

// Read reads a governance file from r.
func Read(r io.Reader, opts ...Option) (*Policy, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("policy: read governance file: %w", err)
	}
	return Parse(data, opts...)
}

// Parse reads a governance file from data. Name it with WithFilename so
// errors point at the right file (default "governance.yaml").
func Parse(data []byte, opts ...Option) (*Policy, error) {
	p := newPolicy(opts)
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("policy: %s is larger than %d bytes: a governance file is a page of rules, not data", p.filename, MaxFileBytes)
	}
	l := &loader{file: p.filename, env: p.env}
	cfg := l.parse(data)
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	p.install(cfg)
	return p, nil
}
