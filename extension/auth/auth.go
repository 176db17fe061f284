// Package auth is the authorisation extension: it decides who may call what.
//
// A call acts for a principal (id, roles, tenant), carried in the call
// (tool.Call.Principal) or in the context (tool.WithPrincipal; the executor
// copies it into the call). Rules map a role to the tools it may call, by
// name or glob ("read_*"), by category, and under a risk ceiling.
//
// Decisions, in order:
//
//  1. A call without a principal ID is refused (rule "require-principal"),
//     unless AllowAnonymous is given.
//  2. With no rules at all, any identified principal may call any tool; with
//     DenyByDefault and no rules, nothing may run. The extension without
//     rules only guarantees that calls are attributed.
//  3. A rule "covers" a tool when one of its Tools globs matches the tool's
//     name or its Categories contain the tool's category; a rule with neither
//     covers every tool. A covered tool may be called only by a principal
//     holding the role of a covering rule, and only if the tool's risk is at
//     or below that rule's ceiling. A tool marked destructive
//     (tool.Annotations.Destructive, not ReadOnly) is judged tool.RiskHigh
//     whatever risk it sets, as the approval extension judges it dangerous.
//  4. Once there are rules, a tool no rule covers is refused (rule
//     "deny-by-default"): a tool registered later, or one the rules forgot,
//     is closed until a rule names it. AllowUnlisted opens such tools to
//     every identified principal instead.
//
// A refused call ends with tool.CodeUnauthorized, a message naming the rule,
// and the rule's name in the result's metadata under MetaRule; nothing
// further in the chain runs. The extensions outside auth (logging, the
// audit trail) see that refusal; the executor answers the principal as if
// the tool did not exist (tool.CodeNotFound, auth's refusal kept as the
// error's cause), so that it cannot learn which tools are hidden from it
// by guessing their names. A call let through runs the rest of the chain
// acting for the principal authorised (extension.Chain runs every layer
// under tool.ActingFor): calls an extension makes with its context act
// for that principal, not for one the caller's context carries (a host's
// operator running a call for a user). The result cache and the approval
// extension must run inside auth, where their priorities put them:
// executor.New refuses either placed outside (CheckChain), where the cache
// would answer calls, and a person be asked about them, before anyone is
// authorised. Auth re-placed by extension.WithPriority is still auth: its
// checks run, at the priority it was given, and the executor asks it
// (extension.Authorizer) which tools its errors may name to a principal.
//
// Names and roles are compared byte for byte, and rules do not read the
// tenant: a role grants the same tools in every tenant. Where each tenant
// names its own roles, give them per-tenant names ("acme:admin").
package auth

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/suggest"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Name is the extension's name.
const Name = "auth"

// Names of the built-in rules, as they appear in denial messages and in
// the result's MetaRule metadata.
const (
	RuleRequirePrincipal = "require-principal"
	RuleDenyByDefault    = "deny-by-default"
)

// MetaRule is the result metadata key that names the rule that refused a
// call (extension.MetaAuthRule, which the executor sets too).
const MetaRule = extension.MetaAuthRule

// AnyRole in Rule.Role matches every identified principal.
const AnyRole = "*"

// Rule grants a role access to tools.
type Rule struct {
	// Name identifies the rule in denial messages; default "role:<Role>".
	Name string
	// Role is the role the rule grants to; AnyRole ("*") grants to every
	// identified principal.
	Role string
	// Tools are tool names or path.Match globs ("read_*", "git_?").
	Tools []string
	// Categories are tool categories (tool.Spec.Category).
	Categories []string
	// MaxRisk, when set, is the highest tool risk the rule allows (a
	// destructive tool counts as tool.RiskHigh). Use Ceiling(tool.RiskLow)
	// to build one.
	MaxRisk *tool.Risk
}

// Ceiling returns a pointer to r, for Rule.MaxRisk.
func Ceiling(r tool.Risk) *tool.Risk { return &r }

func (r *Rule) name() string {
	if r.Name != "" {
		return r.Name
	}
	return "role:" + r.Role
}

// covers reports whether the rule speaks about spec.
func (r *Rule) covers(spec *tool.Spec) bool {
	if len(r.Tools) == 0 && len(r.Categories) == 0 {
		return true
	}
	for _, g := range r.Tools {
		if ok, _ := path.Match(g, spec.Name); ok {
			return true
		}
	}
	return spec.Category != "" && slices.Contains(r.Categories, spec.Category)
}

func (r *Rule) grants(p *tool.Principal) bool {
	return r.Role == AnyRole || p.HasRole(r.Role)
}

// Option configures an Auth.
type Option func(*Auth)

// WithRules adds rules.
func WithRules(rules ...Rule) Option {
	return func(a *Auth) { a.rules = append(a.rules, rules...) }
}

// Allow is shorthand for a rule granting role the named tools (names or
// globs). It must name at least one: a rule with no tools (and no
// categories) covers every tool, so Allow(role, list...) with an empty
// list would grant role everything. New reports that as a configuration
// mistake; grant every tool on purpose with WithRules(Rule{Role: role}).
func Allow(role string, tools ...string) Option {
	if len(tools) == 0 {
		return func(a *Auth) {
			a.optErrs = append(a.optErrs, fmt.Errorf("auth: Allow(%q) names no tools: a rule without tools covers every tool, so it would grant %q all of them; name the tools (or globs) the role may call, or grant every tool on purpose with auth.WithRules(auth.Rule{Role: %q})", role, role, role))
		}
	}
	return WithRules(Rule{Role: role, Tools: tools})
}

// DenyByDefault refuses tools that no rule covers even when there are no
// rules at all (then every tool is refused). With rules, tools no rule
// covers are refused anyway, unless AllowUnlisted.
func DenyByDefault() Option { return func(a *Auth) { a.denyByDefault = true } }

// AllowUnlisted opens the tools that no rule covers to every identified
// principal: the rules then restrict only the tools they name. Without it,
// once there are rules, such tools are refused.
func AllowUnlisted() Option { return func(a *Auth) { a.allowUnlisted = true } }

// AllowAnonymous lets calls without a principal ID through as a principal
// with no roles: they reach tools covered by an AnyRole rule, and tools no
// rule covers where those are open (no rules at all, or AllowUnlisted).
func AllowAnonymous() Option { return func(a *Auth) { a.allowAnonymous = true } }

// Auth is the authorisation extension. Build it with New; it is safe for
// concurrent use and immutable after New.
type Auth struct {
	rules          []Rule
	denyByDefault  bool
	allowUnlisted  bool
	allowAnonymous bool
	optErrs        []error // mistakes found by options (Allow with no tools)
	err            error
}

var (
	_ extension.Extension       = (*Auth)(nil)
	_ extension.ChainChecker    = (*Auth)(nil)
	_ extension.RegistryChecker = (*Auth)(nil)
	_ extension.Authorizer      = (*Auth)(nil)
)

// New returns an authorisation extension. With no options, every call must
// carry a principal ID and any identified principal may call any tool.
//
// Configuration mistakes (a rule without a role, a malformed glob) are
// reported by Check; until fixed, the extension refuses every call (it
// fails closed) with tool.CodeInternal naming the mistake.
func New(opts ...Option) *Auth {
	a := &Auth{}
	for _, o := range opts {
		if o != nil {
			o(a)
		}
	}
	errs := a.optErrs
	for i := range a.rules {
		r := &a.rules[i]
		r.Tools = slices.Clone(r.Tools)
		r.Categories = slices.Clone(r.Categories)
		if r.MaxRisk != nil { // the caller's variable may change after New
			r.MaxRisk = Ceiling(*r.MaxRisk)
		}
		if r.Role == "" {
			errs = append(errs, fmt.Errorf("auth: rule #%d (%s): Role is empty: name the role the rule grants to, or %q for every principal", i, r.name(), AnyRole))
		}
		for _, g := range r.Tools {
			if _, err := path.Match(g, ""); err != nil {
				errs = append(errs, fmt.Errorf("auth: rule %q: tool glob %q is malformed (%v): use *, ? and [...] as in path.Match", r.name(), g, err))
			}
		}
		if r.MaxRisk != nil && (*r.MaxRisk < tool.RiskLow || *r.MaxRisk > tool.RiskHigh) {
			errs = append(errs, fmt.Errorf("auth: rule %q: MaxRisk %d is not a risk level: use tool.RiskLow, RiskMedium or RiskHigh", r.name(), int8(*r.MaxRisk)))
		}
	}
	a.err = errors.Join(errs...)
	return a
}

// Check reports configuration mistakes found by New.
func (a *Auth) Check() error { return a.err }

// CheckRegistry reports rules that name tools reg does not have: an exact
// name that is not registered, or a glob that matches no tool, each with
// the closest names; and, when reg gives its tools (a Get method, as
// registry.Registry has), a category no registered tool has. A typo in a
// rule would otherwise leave the real tool ungoverned (open to every
// principal with AllowUnlisted). executor.New runs it; register tools
// before building the executor.
func (a *Auth) CheckRegistry(reg extension.ToolLister) error {
	names := reg.Names()
	var errs []error
	for _, r := range a.rules {
		for _, g := range r.Tools {
			if g == "*" {
				continue
			}
			matched := false
			for _, n := range names {
				if ok, _ := path.Match(g, n); ok {
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			msg := fmt.Sprintf("auth: rule %q names tool %q, which is not registered", r.name(), g)
			if s := reg.Suggest(g, 1); len(s) > 0 {
				msg += fmt.Sprintf(": did you mean %q?", s[0])
			} else {
				msg += ": register the tool before executor.New, or fix the name"
			}
			errs = append(errs, errors.New(msg))
		}
	}
	// A category no tool has covers nothing: the tools it was meant to
	// restrict are refused to all, or, with AllowUnlisted, open to all.
	if g, ok := reg.(toolGetter); ok {
		var cats []string
		for _, n := range names {
			if t, ok := g.Get(n); ok && t != nil {
				if c := t.Spec().Category; c != "" && !slices.Contains(cats, c) {
					cats = append(cats, c)
				}
			}
		}
		slices.Sort(cats)
		for _, r := range a.rules {
			for _, c := range r.Categories {
				if slices.Contains(cats, c) {
					continue
				}
				msg := fmt.Sprintf("auth: rule %q names category %q, which no registered tool has", r.name(), c)
				switch s := suggest.Closest(c, cats); {
				case s != "":
					msg += fmt.Sprintf(": did you mean %q?", s)
				case len(cats) > 0:
					msg += ": the categories are " + strings.Join(cats, ", ")
				default:
					msg += ": no registered tool has a category (tool.WithCategory); register the tools before executor.New, or name them in Tools"
				}
				errs = append(errs, errors.New(msg))
			}
		}
	}
	return errors.Join(errs...)
}

// inside lists the extensions that must run inside auth, by name, with
// what goes wrong outside it and the priority they belong at.
var inside = []struct {
	name, why string
	priority  int
}{
	// extension/cache's Name.
	{"cache", "it answers calls from its results before auth decides who may make them, so a principal the rules refuse is served what another was given", extension.PriorityCache},
	{extension.NameApproval, "it asks a person about calls before auth decides who may make them, so a principal the rules refuse keeps approvers deciding calls that never run", extension.PriorityApproval},
}

// CheckChain implements extension.ChainChecker: the result cache and the
// approval extension must run inside auth, where their priorities put
// them. Placed outside it (extension.WithPriority), the cache answers a
// call before auth decides whether the principal may make it (with
// SharedAcrossPrincipals, one the rules refuse is served what another was
// given), and a person is asked about calls auth then refuses.
// executor.New runs it.
func (a *Auth) CheckChain(exts []extension.Extension) error {
	sorted := extension.Sort(exts)
	// a itself or a re-placement of it (extension.WithPriority), whose
	// priority is the one it runs at.
	at := slices.IndexFunc(sorted, func(x extension.Extension) bool {
		b, ok := extension.As[*Auth](x)
		return ok && b == a
	})
	if at < 0 {
		return nil
	}
	prio := sorted[at].Priority()
	var errs []error
	for _, x := range sorted[:at] {
		for _, in := range inside {
			if x.Name() == in.name {
				errs = append(errs, fmt.Errorf("auth: extension %q runs outside auth (priority %d, auth's %d): %s; leave both at their priorities (%d and auth's %d), or give extension.WithPriority priorities that put it after auth",
					x.Name(), x.Priority(), prio, in.why, in.priority, extension.PriorityAuth))
			}
		}
	}
	return errors.Join(errs...)
}

// toolGetter is a registry that gives its tools (registry.Registry), whose
// categories CheckRegistry checks the rules' against.
type toolGetter interface {
	Get(name string) (tool.Tool, bool)
}

// Name implements extension.Extension.
func (a *Auth) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityAuth.
func (a *Auth) Priority() int { return extension.PriorityAuth }

// Wrap implements extension.Extension.
func (a *Auth) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		req.Call.Principal = extension.CallPrincipal(ctx, req.Call.Principal) // for a Wrap used alone
		if rule, err := a.Authorize(req.Call.Principal, req.Spec); err != nil {
			return extension.Refusal(&req.Call, rule, err)
		}
		// extension.Chain runs the rest of the chain acting for
		// req.Call.Principal, the principal just authorised.
		return next(ctx, req)
	}
}

// Authorize decides whether p may call the tool described by spec. On
// refusal it returns the name of the deciding rule and a *tool.Error with
// CodeUnauthorized (or CodeInternal when the configuration is broken). It
// can be used alone, for example to hide from a model the tools its user
// may not call.
func (a *Auth) Authorize(p tool.Principal, spec *tool.Spec) (rule string, err error) {
	if spec == nil {
		return "", &tool.Error{Code: tool.CodeInternal, Message: "the call cannot run: access control is not set up correctly here; do not retry: tell the user",
			Err: errors.New("auth: the request has no tool spec: run the extension in an executor, which sets it")}
	}
	if a.err != nil {
		// executor.New refuses this configuration; a chain built without
		// it fails closed. The model is told the tool cannot run, the
		// developer reads the configuration error in the cause.
		return "", &tool.Error{Code: tool.CodeInternal, Message: fmt.Sprintf("tool %q cannot run: access control is not set up correctly here; do not retry: tell the user", spec.Name),
			Err: fmt.Errorf("auth is misconfigured, refusing every call: %w", a.err)}
	}
	if p.ID == "" && !a.allowAnonymous {
		// The model reads the message; the developer's fix travels in Err,
		// which logs and errors.Is see but no model is sent.
		e := tool.Errorf(tool.CodeUnauthorized,
			"rule %q: tool %q runs only for an identified user, and this conversation has none; do not retry: tell the user they must sign in to use it", RuleRequirePrincipal, spec.Name)
		e.Err = errors.New("auth: the call carries no principal: set tool.Call.Principal, or put one in the context with tool.WithPrincipal (mcpserver: a principal option), or allow anonymous calls with auth.AllowAnonymous")
		return RuleRequirePrincipal, e
	}
	if p.ID == "" {
		// An anonymous call holds no roles: roles that come without an ID
		// are claimed by nobody, so they grant nothing.
		p.Roles = nil
	}
	var covering, ceiling *Rule
	for i := range a.rules {
		r := &a.rules[i]
		if !r.covers(spec) {
			continue
		}
		if covering == nil {
			covering = r
		}
		if !r.grants(&p) {
			continue
		}
		if r.MaxRisk != nil && spec.JudgedRisk() > *r.MaxRisk {
			if ceiling == nil {
				ceiling = r
			}
			continue
		}
		return "", nil
	}
	who := describe(p)
	switch {
	case ceiling != nil:
		e := tool.Errorf(tool.CodeUnauthorized,
			"rule %q allows %s tools up to risk %s; tool %q %s", ceiling.name(), who, *ceiling.MaxRisk, spec.Name, riskName(spec))
		e.Err = fmt.Errorf("auth: tool %q is judged risk %s, over the MaxRisk of rule %q (%s): raise that ceiling (auth.Ceiling(tool.Risk%s)), or grant principal %q a role whose rule allows the tool",
			spec.Name, spec.JudgedRisk(), ceiling.name(), *ceiling.MaxRisk, riskConst(spec.JudgedRisk()), p.ID)
		return ceiling.name(), e
	case covering != nil:
		e := tool.Errorf(tool.CodeUnauthorized,
			"tool %q is restricted by rule %q to role %q; %s does not hold it", spec.Name, covering.name(), covering.Role, who)
		e.Err = fmt.Errorf("auth: rule %q covers tool %q and grants it to role %q only: give principal %q that role, or add a rule granting the tool to a role it holds",
			covering.name(), spec.Name, covering.Role, p.ID)
		return covering.name(), e
	case a.denyByDefault:
		e := tool.Errorf(tool.CodeUnauthorized, "rule %q: no rule grants %s the tool %q", RuleDenyByDefault, who, spec.Name)
		e.Err = fmt.Errorf("auth: no rule covers tool %q, and auth.DenyByDefault refuses such tools (auth.AllowUnlisted does not open them while it is set): grant the tool to a role (auth.Allow(role, %q))", spec.Name, spec.Name)
		return RuleDenyByDefault, e
	case len(a.rules) > 0 && !a.allowUnlisted:
		e := tool.Errorf(tool.CodeUnauthorized, "rule %q: no rule grants %s the tool %q", RuleDenyByDefault, who, spec.Name)
		e.Err = fmt.Errorf("auth: no rule covers tool %q: grant it to a role (auth.Allow(role, %q)), or open the tools no rule names with auth.AllowUnlisted", spec.Name, spec.Name)
		return RuleDenyByDefault, e
	}
	return "", nil
}

// riskConst is the name of r's constant after "tool.Risk" ("High").
func riskConst(r tool.Risk) string {
	s := r.String()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// riskName says a tool's risk as it is judged ("is risk high").
func riskName(spec *tool.Spec) string {
	r := spec.Risk
	if spec.JudgedRisk() > r.Effective() {
		return "is marked destructive, so it is judged high"
	}
	if r == tool.RiskUnset {
		return "has no risk set, so it is judged medium"
	}
	return "is risk " + r.Effective().String()
}

func describe(p tool.Principal) string {
	id := p.ID
	if id == "" {
		id = "anonymous"
	}
	if len(p.Roles) == 0 {
		return fmt.Sprintf("principal %q (no roles)", id)
	}
	return fmt.Sprintf("principal %q (roles %s)", id, strings.Join(p.Roles, ", "))
}
