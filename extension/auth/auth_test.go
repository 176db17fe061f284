package auth_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type in struct {
	Q string `json:"q,omitempty"`
}

type out struct {
	OK bool `json:"ok"`
}

// fixture registers three tools and counts backend runs per tool.
type fixture struct {
	reg  *registry.Registry
	runs map[string]*atomic.Int64
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{reg: registry.New(), runs: map[string]*atomic.Int64{}}
	add := func(name string, opts ...tool.Option) {
		n := &atomic.Int64{}
		f.runs[name] = n
		f.reg.MustRegister(tool.Func(name, "test tool "+name, func(context.Context, in) (out, error) {
			n.Add(1)
			return out{OK: true}, nil
		}, opts...))
	}
	add("read_file", tool.WithCategory("files"), tool.WithRisk(tool.RiskLow))
	add("write_file", tool.WithCategory("files"), tool.WithRisk(tool.RiskMedium))
	add("delete_repo", tool.WithCategory("admin"), tool.WithRisk(tool.RiskHigh))
	add("web_search", tool.WithCategory("network"), tool.WithRisk(tool.RiskLow))
	return f
}

func call(name string, p tool.Principal) tool.Call {
	return tool.Call{ID: "c1", Name: name, Args: json.RawMessage(`{}`), Principal: p}
}

// refused is auth's refusal of a call as the chain returned it, read from
// the executor's answer: the executor answers a call of a tool its
// principal may not call as a name no tool has (not_found), with auth's
// refusal as the error's cause and auth's metadata.
func refused(t *testing.T, res *tool.Result) *tool.Result {
	t.Helper()
	require.NotNil(t, res.Error, "the call was not refused")
	require.Equal(t, tool.CodeNotFound, res.Error.Code, "the executor told the principal of a tool it may not call: %s", res.Error)
	var te *tool.Error
	require.ErrorAs(t, res.Error.Err, &te, "the executor's answer keeps no refusal")
	out := *res
	out.Error, out.Status = te, te.Code.Status()
	return &out
}

var (
	alice = tool.Principal{ID: "alice", Roles: []string{"admin"}}
	bob   = tool.Principal{ID: "bob", Roles: []string{"reader"}}
	carol = tool.Principal{ID: "carol", Roles: []string{"writer"}}
	dave  = tool.Principal{ID: "dave"}
)

func TestRules(t *testing.T) {
	rules := []auth.Rule{
		{Name: "admins", Role: "admin"},
		{Name: "readers", Role: "reader", Tools: []string{"read_*"}},
		{Name: "writers", Role: "writer", Categories: []string{"files"}, MaxRisk: auth.Ceiling(tool.RiskLow)},
	}
	cases := []struct {
		name     string
		opts     []auth.Option
		tool     string
		who      tool.Principal
		wantRule string // empty: allowed
		wantMsg  string
	}{
		{"admin rule covers everything", []auth.Option{auth.WithRules(rules...)}, "delete_repo", alice, "", ""},
		// The admins rule has no tools or categories, so it covers every
		// tool: readers may call only what their own rule grants.
		{"reader may read by glob", []auth.Option{auth.WithRules(rules...)}, "read_file", bob, "", ""},
		{"reader may not write", []auth.Option{auth.WithRules(rules...)}, "write_file", bob, "admins", `restricted by rule "admins"`},
		{"writer over ceiling", []auth.Option{auth.WithRules(rules...)}, "write_file", carol, "writers", "up to risk low; tool \"write_file\" is risk medium"},
		{"writer within ceiling by category", []auth.Option{auth.WithRules(rules...)}, "read_file", carol, "", ""},
		{"no rules: identified principal passes", nil, "delete_repo", dave, "", ""},
		{"no rules, deny by default", []auth.Option{auth.DenyByDefault()}, "read_file", alice, auth.RuleDenyByDefault, "no rule grants"},
		// A tool the rules forgot (or one registered later) is closed once
		// there are rules: it used to be open to everyone.
		{"uncovered tool refused once there are rules", []auth.Option{auth.Allow("reader", "read_*")}, "web_search", dave, auth.RuleDenyByDefault, `no rule grants principal "dave"`},
		{"uncovered tool open with AllowUnlisted", []auth.Option{auth.Allow("reader", "read_*"), auth.AllowUnlisted()}, "web_search", dave, "", ""},
		{"uncovered tool denied by default", []auth.Option{auth.Allow("reader", "read_*"), auth.DenyByDefault()}, "web_search", bob, auth.RuleDenyByDefault, `"web_search"`},
		{"deny by default wins over AllowUnlisted", []auth.Option{auth.Allow("reader", "read_*"), auth.DenyByDefault(), auth.AllowUnlisted()}, "web_search", bob, auth.RuleDenyByDefault, `"web_search"`},
		{"anonymous refused on uncovered tool once there are rules", []auth.Option{auth.AllowAnonymous(), auth.Allow("reader", "read_*")}, "web_search", tool.Principal{}, auth.RuleDenyByDefault, `"anonymous"`},
		{"covered tool, role missing", []auth.Option{auth.Allow("reader", "read_*")}, "read_file", dave, "role:reader", `does not hold it`},
		{"any-role rule", []auth.Option{auth.WithRules(auth.Rule{Name: "everyone", Role: auth.AnyRole, Tools: []string{"web_search"}}), auth.DenyByDefault()}, "web_search", dave, "", ""},
		{"missing principal", nil, "read_file", tool.Principal{}, auth.RuleRequirePrincipal, `tool "read_file" runs only for an identified user, and this conversation has none; do not retry`},
		{"anonymous allowed on open tool", []auth.Option{auth.AllowAnonymous()}, "read_file", tool.Principal{}, "", ""},
		{"anonymous refused on covered tool", []auth.Option{auth.AllowAnonymous(), auth.Allow("reader", "read_*")}, "read_file", tool.Principal{}, "role:reader", `"anonymous"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			a := auth.New(tc.opts...)
			require.NoError(t, a.Check())
			ex := executor.MustNew(f.reg, executor.WithExtensions(a))
			res, err := ex.Execute(context.Background(), call(tc.tool, tc.who))
			if tc.wantRule == "" {
				require.NoError(t, err)
				assert.True(t, res.OK())
				assert.Equal(t, int64(1), f.runs[tc.tool].Load())
				return
			}
			require.Error(t, err)
			res = refused(t, res)
			assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
			assert.Equal(t, tool.StatusDenied, res.Status)
			assert.Contains(t, res.Error.Message, tc.wantMsg)
			assert.Contains(t, res.Error.Message, tc.wantRule, "the message names the rule")
			assert.Equal(t, tc.wantRule, res.Metadata[auth.MetaRule])
			assert.Zero(t, f.runs[tc.tool].Load(), "the backend must not run")
		})
	}
}

// The refusal of an anonymous call speaks to the model; the developer's fix
// is in the error's cause, which is never sent to a model.
func TestMissingPrincipalSpeaksToTheModel(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(auth.New()))
	res, err := ex.Execute(context.Background(), call("read_file", tool.Principal{}))
	require.ErrorIs(t, err, tool.ErrUnauthorized)
	res = refused(t, res)
	assert.NotContains(t, res.Error.Message, "tool.Call.Principal", "code advice is for the developer, not the model")
	assert.NotContains(t, res.Error.Message, "WithPrincipal")
	require.Error(t, res.Error.Err)
	assert.Contains(t, res.Error.Err.Error(), "set tool.Call.Principal")
	wire, jerr := json.Marshal(res.Error)
	require.NoError(t, jerr)
	assert.NotContains(t, string(wire), "tool.Call.Principal")
}

func TestPrincipalFromContext(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(auth.New(auth.Allow("reader", "read_*"))))

	ctx := tool.WithPrincipal(context.Background(), bob)
	res, err := ex.Execute(ctx, call("read_file", tool.Principal{}))
	require.NoError(t, err)
	assert.True(t, res.OK())

	// The same call with nothing in the context: refused, nothing runs.
	res, err = ex.Execute(context.Background(), call("read_file", tool.Principal{}))
	require.Error(t, err)
	res = refused(t, res)
	assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
	assert.Equal(t, auth.RuleRequirePrincipal, res.Metadata[auth.MetaRule])
	assert.Equal(t, int64(1), f.runs["read_file"].Load())
}

func TestPrincipalFromContextWithoutExecutorCopy(t *testing.T) {
	// Used alone in a hand-built chain (no executor), auth still reads the
	// principal from the context.
	a := auth.New(auth.Allow("reader", "read_*"))
	spec := tool.Spec{Name: "read_file"}
	ran := false
	h := extension.Chain(func(context.Context, *extension.Request) *tool.Result {
		ran = true
		return &tool.Result{Status: tool.StatusSucceeded}
	}, a)
	ctx := tool.WithPrincipal(context.Background(), bob)
	res := h(ctx, &extension.Request{Call: tool.Call{Name: "read_file"}, Spec: &spec, Attempt: 1})
	assert.True(t, res.OK())
	assert.True(t, ran)
}

func TestMisconfigurationFailsClosed(t *testing.T) {
	cases := []struct {
		name string
		rule auth.Rule
		want string
	}{
		{"empty role", auth.Rule{Name: "x", Tools: []string{"read_file"}}, "Role is empty"},
		{"bad glob", auth.Rule{Role: "reader", Tools: []string{"read_[x"}}, `tool glob "read_[x" is malformed`},
		{"bad risk", auth.Rule{Role: "reader", MaxRisk: auth.Ceiling(tool.Risk(9))}, "MaxRisk 9 is not a risk level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := auth.New(auth.WithRules(tc.rule))
			require.Error(t, a.Check())
			assert.Contains(t, a.Check().Error(), tc.want)

			// executor.New refuses it before any call...
			f := newFixture(t)
			_, err := executor.New(f.reg, executor.WithExtensions(a))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)

			// ...and a chain built without New still fails closed.
			spec := tool.Spec{Name: "read_file"}
			h := a.Wrap(func(context.Context, *extension.Request) *tool.Result {
				t.Fatal("the backend ran")
				return nil
			})
			res := h(tool.WithPrincipal(context.Background(), alice), &extension.Request{Call: tool.Call{Name: "read_file", Principal: alice}, Spec: &spec, Attempt: 1})
			require.NotNil(t, res.Error)
			assert.Equal(t, tool.CodeInternal, res.Error.Code)
			// The model is told the tool cannot run; the configuration
			// error is the developer's, in the cause.
			assert.Equal(t, `tool "read_file" cannot run: access control is not set up correctly here; do not retry: tell the user`, res.Error.Message)
			assert.ErrorContains(t, res.Error.Err, tc.want)
		})
	}
}

// A tool whose author set no risk is judged medium by a risk ceiling: a
// rule allowing only low-risk tools does not let a drop_table through.
func TestUnsetRiskIsJudgedMediumByACeiling(t *testing.T) {
	f := newFixture(t)
	f.reg.MustRegister(tool.Func("drop_table", "Drop a table", func(context.Context, in) (out, error) { return out{OK: true}, nil }, tool.WithCategory("files")))
	a := auth.New(auth.WithRules(auth.Rule{Name: "writers", Role: "writer", Categories: []string{"files"}, MaxRisk: auth.Ceiling(tool.RiskLow)}))
	ex := executor.MustNew(f.reg, executor.WithExtensions(a))
	res, err := ex.Execute(context.Background(), call("drop_table", carol))
	require.ErrorIs(t, err, tool.ErrUnauthorized)
	res = refused(t, res)
	assert.Equal(t, `rule "writers" allows principal "carol" (roles writer) tools up to risk low; tool "drop_table" has no risk set, so it is judged medium`, res.Error.Message)
}

// A rule naming a tool that is not registered (a typo) makes executor.New
// fail with the closest name, instead of leaving the real tool open.
func TestRuleForUnknownToolRefusedByNew(t *testing.T) {
	f := newFixture(t)
	_, err := executor.New(f.reg, executor.WithExtensions(auth.New(auth.WithRules(auth.Rule{Role: "reader", Tools: []string{"read_fiel"}}))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `names tool "read_fiel", which is not registered: did you mean "read_file"?`)
	_, err = executor.New(f.reg, executor.WithExtensions(auth.New(auth.WithRules(auth.Rule{Role: "reader", Tools: []string{"read_*"}}))))
	require.NoError(t, err, "a glob that matches a tool is fine")
}

func TestPriority(t *testing.T) {
	a := auth.New()
	assert.Equal(t, extension.PriorityAuth, a.Priority())
	assert.Equal(t, auth.Name, a.Name())
	assert.Equal(t, 42, extension.WithPriority(a, 42).Priority())
}

// A custom extension placed between auth and policy panics. The chain's
// guard turns the panic into a result, and auth (outside it) returns that
// result: the panic code, with the outer extensions still seeing a result.
func TestPanickingExtensionInsideAuth(t *testing.T) {
	f := newFixture(t)
	var outerSaw atomic.Value
	outer := extension.Hooks{ExtName: "outer", Prio: extension.PriorityLogging,
		After: func(_ context.Context, _ *extension.Request, res *tool.Result) {
			outerSaw.Store(res.Error.Code)
		}}
	boom := extension.Func("boom", extension.PriorityAuth+50, func(extension.Handler) extension.Handler {
		return func(context.Context, *extension.Request) *tool.Result { panic("boom") }
	})
	var authSaw atomic.Value
	// Observe what auth's Wrap returns by wrapping it (same priority slot).
	a := auth.New()
	observed := extension.Func("auth", extension.PriorityAuth, func(next extension.Handler) extension.Handler {
		h := a.Wrap(next)
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			res := h(ctx, req)
			authSaw.Store(res.Error.Code)
			return res
		}
	})
	ex := executor.MustNew(f.reg, executor.WithExtensions(outer, observed, boom))
	res, err := ex.Execute(context.Background(), call("read_file", alice))
	require.Error(t, err)
	assert.Equal(t, tool.CodePanic, res.Error.Code)
	assert.Contains(t, res.Error.Message, `"boom" panicked: boom`)
	assert.Equal(t, tool.CodePanic, authSaw.Load(), "auth's result is the panic result")
	assert.Equal(t, tool.CodePanic, outerSaw.Load(), "the outer extension still ran its After")
	assert.Zero(t, f.runs["read_file"].Load())
}

// The refusal of a tool no rule covers tells the developer both ways out:
// a rule that grants it, or AllowUnlisted.
func TestUncoveredToolRefusalNamesTheFix(t *testing.T) {
	a := auth.New(auth.Allow("reader", "read_*"))
	spec := tool.Spec{Name: "web_search"}
	rule, err := a.Authorize(tool.Principal{ID: "dave"}, &spec)
	require.Error(t, err)
	assert.Equal(t, auth.RuleDenyByDefault, rule)
	te := tool.AsError(err)
	require.Error(t, te.Err)
	assert.Contains(t, te.Err.Error(), `auth.Allow(role, "web_search")`)
	assert.Contains(t, te.Err.Error(), "auth.AllowUnlisted")
}
