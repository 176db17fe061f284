// Package registry stores tools, looks them up, filters them, and exports
// their definitions in the format each model provider expects: OpenAI chat
// completions and responses (strict where possible), Anthropic, Gemini and
// MCP.
//
// Registering compiles a tool's schemas once, so the executor validates
// every call against a ready validator.
package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/internal/suggest"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Entry is a registered tool with its compiled schemas.
type Entry struct {
	Tool tool.Tool
	// Spec is the spec as registered (Tool.Spec() is called once).
	Spec tool.Spec
	// input validates arguments; output validates structured output (nil
	// when the tool has no output schema, or its output conforms by
	// construction: see tool.OutputConformer).
	input  *schema.Validator
	output *schema.Validator
	// defs are the input schema's property defaults, nil when it has none.
	defs *schema.Defaults
}

// MaxArgValues is how many JSON values one call's arguments may hold (a
// member of an object counts its key too): checking them allocates some
// 450 bytes per value, whatever its size, so 1 MB of small integers (the
// executor's default limit on arguments) cost 307 MB before it was
// refused. A model's tool call holds far fewer; pass bulk data by
// reference (a path, a URL).
const MaxArgValues = 1 << 16

// CheckArgs checks a call's arguments against the tool's compiled input
// schema: a JSON object (empty means {}), optional nulls the schema does not
// accept dropped (OpenAI's strict mode sends them for omitted fields), the
// schema's property defaults filled in where the arguments leave them out
// (also inside the objects they hold), every field valid, no key twice and
// no key naming a property in another case ("PATH" for "path", which
// encoding/json would take for it unchecked), and each number valid both
// as sent and as a float64 reads it (0.99999999999999999999 reads as 1,
// 1e-400 as 0). Arguments of more than MaxArgValues values are refused
// before they are decoded. It returns the
// arguments to run with (re-encoded only when nulls were dropped or defaults
// filled), or an error naming every failing field; a secret field's value
// never appears in it.
func (e *Entry) CheckArgs(args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if e.input.AcceptsAnyObject() && e.defs == nil && schema.IsObject(args) {
		// Nothing to check inside, nothing to strip.
		if err := schema.UniqueKeys(args); err != nil {
			return nil, err
		}
		return args, nil
	}
	if err := schema.CountValues(args, MaxArgValues); err != nil {
		return nil, err
	}
	m, err := schema.Decode(args)
	if err != nil {
		return nil, err
	}
	if err := schema.UniqueKeys(args); err != nil {
		return nil, err
	}
	// A null is only ever written "null": without one there is none to strip.
	stripped := bytes.Contains(args, []byte("null")) && e.input.StripNulls(m)
	if len(e.defs.Fill(m, "")) > 0 || stripped {
		if args, err = json.Marshal(m); err != nil {
			return nil, fmt.Errorf("re-encode arguments: %v", err)
		}
	}
	if err := e.input.Validate(m); err != nil {
		return nil, err
	}
	return args, nil
}

// ChecksOutput reports whether CheckOutput validates anything: the tool
// has an output schema and its output does not conform by construction.
func (e *Entry) ChecksOutput() bool { return e.output != nil }

// CheckOutput checks structured output against the tool's output schema;
// nil when it has none (see ChecksOutput).
func (e *Entry) CheckOutput(out json.RawMessage) error {
	if e.output == nil {
		return nil
	}
	m, err := schema.Decode(out)
	if err != nil {
		return err
	}
	return e.output.Validate(m)
}

// Registry holds tools by name. It is safe for concurrent use; the zero
// value is not usable, call New.
type Registry struct {
	checks  []func(tool.Spec) error // OnRegister; guarded by mu
	mu      sync.RWMutex
	entries map[string]*Entry
	order   []string
	// snap is a read-only copy of entries, replaced on every change, so that
	// Lookup — once per call, from every core — takes no lock and writes no
	// shared memory.
	snap atomic.Pointer[map[string]*Entry]
}

// publish replaces the lookup snapshot; r.mu must be held.
func (r *Registry) publish() {
	m := maps.Clone(r.entries)
	r.snap.Store(&m)
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{entries: map[string]*Entry{}}
}

// Register adds tools. Each is checked: its name must be portable, unique in
// the registry, its construction must have succeeded (tool.Checker), and its
// schemas must be object schemas that compile. On any error nothing is
// registered and the error names every problem.
func (r *Registry) Register(tools ...tool.Tool) error {
	var errs []error
	prepared := make([]*Entry, 0, len(tools))
	seen := map[string]bool{}
	for i, t := range tools {
		if t == nil {
			errs = append(errs, fmt.Errorf("tool #%d is nil", i))
			continue
		}
		e, err := prepare(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[e.Spec.Name] {
			errs = append(errs, fmt.Errorf("tool %q is given twice in one Register call", e.Spec.Name))
			continue
		}
		seen[e.Spec.Name] = true
		prepared = append(prepared, e)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range prepared {
		for _, check := range r.checks {
			if err := check(e.Spec); err != nil {
				errs = append(errs, fmt.Errorf("tool %q: %w", e.Spec.Name, err))
			}
		}
		if _, dup := r.entries[e.Spec.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %q is already registered: choose another name, or Remove the old one first", e.Spec.Name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	for _, e := range prepared {
		r.entries[e.Spec.Name] = e
		r.order = append(r.order, e.Spec.Name)
	}
	r.publish()
	return nil
}

// OnRegister adds a check that every tool registered from now on must
// pass: Register refuses a tool the check rejects, with its error.
// executor.New installs the checks of its extensions (extension.ToolChecker)
// so that a tool registered after the executor was built is checked too.
func (r *Registry) OnRegister(check func(tool.Spec) error) {
	if check == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, check)
}

// MustRegister is Register that panics on error, for program start-up.
func (r *Registry) MustRegister(tools ...tool.Tool) {
	if err := r.Register(tools...); err != nil {
		panic(err)
	}
}

func prepare(t tool.Tool) (*Entry, error) {
	if c, ok := t.(tool.Checker); ok {
		if err := c.Check(); err != nil {
			return nil, err
		}
	}
	// A spec of the registry's own: whoever holds the tool (an approver
	// that unwraps it) writing into the slices its Spec returns must not
	// change the spec every call is judged by
	// (TestAttackS30RegisteredSpecIsTheRegistrys).
	spec := t.Spec().Clone()
	if err := tool.CheckName(spec.Name); err != nil {
		return nil, err
	}
	if strings.TrimSpace(spec.Description) == "" {
		return nil, fmt.Errorf("tool %q has no description: tell the model what the tool does and when to use it (a model picks tools by their descriptions)", spec.Name)
	}
	if len(spec.InputSchema) == 0 {
		return nil, fmt.Errorf("tool %q has no input schema: give it one (tool.WithInputSchema) or build it with tool.Func", spec.Name)
	}
	in, err := schema.Compile(spec.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", spec.Name, err)
	}
	in = in.WithSecrets(spec.Secrets) // a secret's value never appears in an error
	e := &Entry{Tool: t, Spec: spec, input: in, defs: schema.DefaultsOf(spec.InputSchema)}
	if err := e.defs.Check(in); err != nil {
		return nil, fmt.Errorf("tool %q: %w", spec.Name, err)
	}
	if len(spec.OutputSchema) == 0 {
		// No output schema: structured output is not validated.
	} else if oc, ok := t.(tool.OutputConformer); ok && oc.OutputConforms() {
		// Still check the schema compiles: it is exported to MCP clients.
		if _, err := schema.Compile(spec.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", spec.Name, err)
		}
	} else {
		out, err := schema.Compile(spec.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", spec.Name, err)
		}
		e.output = out
	}
	if spec.Timeout < 0 {
		return nil, fmt.Errorf("tool %q: timeout %v is negative: use 0 for the executor's default", spec.Name, spec.Timeout)
	}
	if spec.RateLimitPerHour < 0 {
		return nil, fmt.Errorf("tool %q: rate_limit_per_hour %d is negative: use 0 for no limit", spec.Name, spec.RateLimitPerHour)
	}
	return e, nil
}

// Remove unregisters a tool and reports whether it was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		return false
	}
	delete(r.entries, name)
	r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
	r.publish()
	return true
}

// Lookup returns the entry for name.
func (r *Registry) Lookup(name string) (*Entry, bool) {
	m := r.snap.Load()
	if m == nil {
		return nil, false
	}
	e, ok := (*m)[name]
	return e, ok
}

// Get returns the tool registered under name.
func (r *Registry) Get(name string) (tool.Tool, bool) {
	e, ok := r.Lookup(name)
	if !ok {
		return nil, false
	}
	return e.Tool, true
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries)
}

// Filter selects specs in List and Export. Zero fields match everything.
type Filter struct {
	// Names, when non-empty, keeps only these tools (an agent's declared tools).
	Names []string
	// Category keeps tools of this category.
	Category string
	// Tags keeps tools carrying every one of these tags.
	Tags []string
	// MaxRisk keeps tools at or below this risk when set (use a pointer to
	// allow RiskLow as a ceiling), judged by tool.Spec.JudgedRisk: a tool's
	// unset risk counts as medium, a destructive tool's as high.
	MaxRisk *tool.Risk
	// Mode keeps tools allowed in this operating mode (Spec.AllowedModes).
	Mode string
	// Keep, when set, keeps the tools it reports true for: a governance
	// policy's Allows keeps those its current mode lets run.
	Keep func(spec *tool.Spec) bool
}

// Match reports whether spec passes the filter.
func (f Filter) Match(spec *tool.Spec) bool {
	if len(f.Names) > 0 && !slices.Contains(f.Names, spec.Name) {
		return false
	}
	if f.Category != "" && spec.Category != f.Category {
		return false
	}
	for _, t := range f.Tags {
		if !spec.HasTag(t) {
			return false
		}
	}
	if f.MaxRisk != nil && spec.JudgedRisk() > *f.MaxRisk {
		return false
	}
	if f.Mode != "" && !spec.AllowsMode(f.Mode) {
		return false
	}
	return f.Keep == nil || f.Keep(spec)
}

// List returns the specs that pass the filter, in registration order. The
// filter sees copies, outside the registry's lock: a Keep function may
// call the registry.
func (r *Registry) List(f Filter) []tool.Spec {
	r.mu.RLock()
	out := make([]tool.Spec, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.entries[n].Spec)
	}
	r.mu.RUnlock()
	return slices.DeleteFunc(out, func(s tool.Spec) bool { return !f.Match(&s) })
}

// Names returns the registered names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Suggest returns up to n registered names closest to name (by edit
// distance, then shared prefix), for "did you mean" messages.
func (r *Registry) Suggest(name string, n int) []string {
	names := r.Names()
	type cand struct {
		name string
		d    int
	}
	cs := make([]cand, 0, len(names))
	lname := strings.ToLower(name)
	for _, c := range names {
		d := suggest.Distance(lname, strings.ToLower(c))
		if strings.Contains(strings.ToLower(c), lname) || strings.Contains(lname, strings.ToLower(c)) {
			d = min(d, 2)
		}
		limit := max(3, len(c)/2)
		if d <= limit {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	out := make([]string, 0, n)
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
