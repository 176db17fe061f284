package approval

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestDecisionCheck(t *testing.T) {
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{"approve", Approved("u"), ""},
		{"deny", Denied("u", "no"), ""},
		{"abstain", Decision{Kind: Abstain}, ""},
		{"modify", Modified("u", json.RawMessage(`{"a":1}`)), ""},
		{"zero", Decision{}, "kind is unset"},
		{"unknown kind", Decision{Kind: 77}, "unknown kind 77"},
		{"modify without args", Decision{Kind: Modify}, "carries no arguments"},
		{"modify with array", Modified("u", json.RawMessage(`[1]`)), "JSON array"},
		{"modify with broken JSON", Modified("u", json.RawMessage(`{"a":`)), "not valid JSON"},
		{"unknown scope", Approved("u").WithScope(9), "unknown scope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.d.Check()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecisionJSON(t *testing.T) {
	d := Denied("alice", "use --dry-run").WithScope(ScopeSessionTool)
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"deny","message":"use --dry-run","decided_by":"alice","scope":"session_tool"}`, string(b))
	var back Decision
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, d, back)
	assert.Error(t, json.Unmarshal([]byte(`{"kind":"maybe"}`), &back))
	assert.Error(t, json.Unmarshal([]byte(`{"kind":"approve","scope":"forever"}`), &back))
	_, err = json.Marshal(Decision{})
	assert.Error(t, err, "a zero decision does not serialise as if it meant something")
}

func TestHashArgsCanonical(t *testing.T) {
	a, err := HashArgs(json.RawMessage(`{"b":1,"a":{"y":[1,2],"x":"s"}}`))
	require.NoError(t, err)
	b, err := HashArgs(json.RawMessage(" {\"a\": {\"x\":\"s\",\"y\":[1, 2]},\n \"b\":1}"))
	require.NoError(t, err)
	assert.Equal(t, a, b, "key order and white space do not change the hash")
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, a)
	c, err := HashArgs(json.RawMessage(`{"b":2,"a":{"y":[1,2],"x":"s"}}`))
	require.NoError(t, err)
	assert.NotEqual(t, a, c)
	_, err = HashArgs(json.RawMessage(`{"a":1} x`))
	assert.Error(t, err)
}

func TestValidateArgs(t *testing.T) {
	spec := &tool.Spec{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":5}},"required":["n"]}`)}
	out, err := ValidateArgs(spec, json.RawMessage(` {"n": 3} `))
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":3}`, string(out))
	_, err = ValidateArgs(spec, json.RawMessage(`{"n":9}`))
	assert.ErrorContains(t, err, "n")
	_, err = ValidateArgs(spec, json.RawMessage(`{}`))
	assert.ErrorContains(t, err, "n")
	_, err = ValidateArgs(spec, json.RawMessage(`"x"`))
	assert.ErrorContains(t, err, "JSON string")
	_, err = ValidateArgs(&tool.Spec{Name: "bad", InputSchema: json.RawMessage(`{"type":"string"}`)}, json.RawMessage(`{}`))
	assert.ErrorContains(t, err, `tool "bad"`)
}

func TestSubjectOf(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"command":"ls","path":"/x"}`, "ls"},
		{`{"path":"/x","url":"http://a"}`, "/x, http://a"},
		{`{"file":"f"}`, "f"},
		{`{"url":"http://a"}`, "http://a"},
		{`{"command":3,"path":"p"}`, "p"},
		{`{"other":"x"}`, ""},
		{`not json`, ""},
	}
	for _, tc := range tests {
		got, ok := SubjectOf(nil, json.RawMessage(tc.args))
		assert.Equal(t, tc.want, got, tc.args)
		assert.Equal(t, tc.want != "", ok)
	}
	got, ok := SubjectOf(subjectTool{}, json.RawMessage(`{}`))
	assert.True(t, ok)
	assert.Equal(t, "custom:{}", got)
}

type assessTool struct {
	tool.Tool
	level classify.Level
}

func (a assessTool) Assess(json.RawMessage) classify.Verdict {
	return classify.Verdict{Level: a.level, Reasons: []string{"assessed"}}
}

func TestLevelOf(t *testing.T) {
	tests := []struct {
		spec tool.Spec
		want classify.Level
	}{
		{tool.Spec{Risk: tool.RiskLow}, classify.Safe},
		{tool.Spec{Risk: tool.RiskMedium}, classify.Warning},
		{tool.Spec{Risk: tool.RiskHigh}, classify.Dangerous},
		{tool.Spec{Risk: tool.Risk(-3)}, classify.Dangerous},
		{tool.Spec{Risk: tool.RiskLow, Annotations: tool.Annotations{Destructive: true}}, classify.Dangerous},
		{tool.Spec{Risk: tool.RiskLow, Annotations: tool.Annotations{Destructive: true, ReadOnly: true}}, classify.Safe},
	}
	for _, tc := range tests {
		l, _ := LevelOf(nil, &tc.spec, nil)
		assert.Equal(t, tc.want, l, "%+v", tc.spec)
	}
	l, why := LevelOf(assessTool{level: classify.Safe}, &tool.Spec{Risk: tool.RiskHigh}, nil)
	assert.Equal(t, classify.Safe, l, "a tool's own assessment wins over its spec risk")
	assert.Equal(t, []string{"assessed"}, why)
}

// A Go func whose author set no risk (a drop_table written in a hurry) is
// not auto-approved: an unset risk is treated as medium.
func TestUnsetRiskIsNotAutoApproved(t *testing.T) {
	dropTable := tool.Func("drop_table", "Drop a table", func(context.Context, struct {
		Table string `json:"table"`
	}) (string, error) {
		return "dropped", nil
	})
	spec := dropTable.Spec()
	assert.Equal(t, tool.Risk(0), spec.Risk, "tool.Func sets no risk of its own")
	l, why := LevelOf(dropTable, &spec, json.RawMessage(`{"table":"users"}`))
	assert.Equal(t, classify.Warning, l)
	assert.Contains(t, why, "tool risk is not set (treated as medium)")
	ev := MustPolicy(ModeAuto).Evaluate(dropTable, &Request{Call: tool.Call{Name: "drop_table", Args: json.RawMessage(`{"table":"users"}`)}, Spec: spec, Level: l})
	assert.Equal(t, ActionAsk, ev.Action, "a call of unknown risk is asked about, not auto-approved")
}

func TestFirstDecisive(t *testing.T) {
	ctx := context.Background()
	abstain := ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{Kind: Abstain}, nil })
	approve := ApproverFunc(func(context.Context, Request) (Decision, error) { return Approved("b"), nil })
	deny := ApproverFunc(func(context.Context, Request) (Decision, error) { return Denied("c", "no"), nil })
	boom := ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{}, errors.New("boom") })
	zero := ApproverFunc(func(context.Context, Request) (Decision, error) { return Decision{}, nil })

	d, err := FirstDecisive(abstain, nil, approve, deny).Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Approved("b"), d)
	d, err = FirstDecisive(abstain, deny, approve).Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind)
	d, err = FirstDecisive(abstain, abstain).Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind, "all abstain: deny")
	_, err = FirstDecisive(boom, approve).Approve(ctx, Request{})
	assert.ErrorContains(t, err, "boom")
	_, err = FirstDecisive(zero, approve).Approve(ctx, Request{})
	assert.ErrorIs(t, err, ErrMalformed)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = FirstDecisive(approve).Approve(cctx, Request{})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestUnanimous(t *testing.T) {
	ctx := context.Background()
	var seen []string
	by := func(name string, d Decision) Approver {
		return ApproverFunc(func(_ context.Context, r Request) (Decision, error) {
			seen = append(seen, name+":"+string(r.Call.Args))
			d.DecidedBy = name
			return d, nil
		})
	}
	d, err := Unanimous(by("a", Approved("").WithScope(ScopeSessionTool)), by("b", Modified("", json.RawMessage(`{"x":2}`))), by("c", Approved("").WithScope(ScopeSessionArgs))).
		Approve(ctx, Request{Call: tool.Call{Args: json.RawMessage(`{"x":1}`)}})
	require.NoError(t, err)
	assert.Equal(t, Modify, d.Kind)
	assert.JSONEq(t, `{"x":2}`, string(d.Args))
	assert.Equal(t, "a, b, c", d.DecidedBy)
	assert.Equal(t, ScopeCall, d.Scope, "narrowest scope")
	assert.Equal(t, []string{`a:{"x":1}`, `b:{"x":1}`, `c:{"x":2}`}, seen, "later approvers see the modification")

	seen = nil
	d, err = Unanimous(by("a", Approved("")), by("b", Denied("", "no")), by("c", Approved(""))).Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind)
	assert.Len(t, seen, 2, "stops at the first denial")

	d, err = Unanimous(by("a", Approved("")), by("b", Decision{Kind: Abstain})).Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind, "an abstention is not an approval")

	d, err = Unanimous().Approve(ctx, Request{})
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind)

	_, err = Unanimous(by("a", Decision{Kind: 9})).Approve(ctx, Request{})
	assert.ErrorIs(t, err, ErrMalformed)
}
