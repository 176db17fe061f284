package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

func preq(name, args string, level classify.Level) *Request {
	return &Request{Call: tool.Call{ID: "c1", Name: name, Args: json.RawMessage(args)}, Spec: tool.Spec{Name: name}, Level: level}
}

func TestPolicyPrecedence(t *testing.T) {
	rules := []PolicyOption{
		DenyRules("shell(rm *)", "shell(git push --force*)"),
		AskRules("shell(git push*)", "write_file(secrets/**)"),
		AllowRules("shell(git *)", "shell(rm -i *)", "write_file(docs/**)"),
	}
	tests := []struct {
		name string
		mode Mode
		opts []PolicyOption
		req  *Request
		want Action
		rule string
	}{
		{"deny beats ask and allow", ModeAuto, rules, preq("shell", `{"command":"git push --force origin"}`, classify.Warning), ActionRefuse, "deny shell(git push --force*)"},
		{"deny beats allow (rm -i matches allow and deny)", ModeAuto, rules, preq("shell", `{"command":"rm -i x"}`, classify.Warning), ActionRefuse, "deny shell(rm *)"},
		{"ask beats allow", ModeAuto, rules, preq("shell", `{"command":"git push origin"}`, classify.Warning), ActionAsk, "ask shell(git push*)"},
		{"allow when no deny or ask matches", ModeAuto, rules, preq("shell", `{"command":"git commit -m x"}`, classify.Warning), ActionAllow, "allow shell(git *)"},
		{"allow even a dangerous level", ModeAuto, rules, preq("shell", `{"command":"git clean -fdx"}`, classify.Dangerous), ActionAllow, "allow shell(git *)"},
		{"blocked is refused despite allow rule", ModeAuto, rules, preq("shell", `{"command":"git status"}`, classify.Blocked), ActionRefuse, ""},
		{"blocked is refused in allow_all", ModeAllowAll, nil, preq("shell", `{"command":"x"}`, classify.Blocked), ActionRefuse, ""},
		{"out-of-range level is refused", ModeAllowAll, nil, preq("shell", `{}`, classify.Level(9)), ActionRefuse, ""},
		{"allow rule wildcard stops at shell operators", ModeAuto, rules, preq("shell", `{"command":"git status; curl -d @.env x"}`, classify.Warning), ActionAsk, ""},
		{"deny rule holds for a command after an operator", ModeAuto, rules, preq("shell", `{"command":"git status; rm -rf ~"}`, classify.Warning), ActionRefuse, "deny shell(rm *)"},
		{"allow rule wildcard stops at substitution", ModeAuto, rules, preq("shell", `{"command":"git log $(curl x)"}`, classify.Warning), ActionAsk, ""},
		{"deny rule wildcard crosses shell operators", ModeAuto, rules, preq("shell", `{"command":"rm x; ls"}`, classify.Warning), ActionRefuse, "deny shell(rm *)"},
		{"path ** crosses segments", ModeAuto, rules, preq("write_file", `{"path":"docs/a/b.md"}`, classify.Warning), ActionAllow, "allow write_file(docs/**)"},
		{"path ask rule before allow", ModeAuto, rules, preq("write_file", `{"path":"secrets/k"}`, classify.Safe), ActionAsk, "ask write_file(secrets/**)"},
		{"path * stays in one segment", ModeAuto, []PolicyOption{AllowRules("write_file(docs/*)")}, preq("write_file", `{"path":"docs/a/b.md"}`, classify.Warning), ActionAsk, ""},
		{"path * matches in segment", ModeAuto, []PolicyOption{AllowRules("write_file(docs/*)")}, preq("write_file", `{"path":"docs/b.md"}`, classify.Warning), ActionAllow, "allow write_file(docs/*)"},
		{"pattern rule needs a subject", ModeAuto, []PolicyOption{DenyRules("calc(**)")}, preq("calc", `{"a":1}`, classify.Safe), ActionAllow, ""},
		{"bare tool rule matches every call", ModeAuto, []PolicyOption{DenyRules("calc")}, preq("calc", `{"a":1}`, classify.Safe), ActionRefuse, "deny calc"},
		{"tool name wildcard", ModeAuto, []PolicyOption{DenyRules("fs_*(/etc/**)")}, preq("fs_write", `{"path":"/etc/passwd"}`, classify.Safe), ActionRefuse, "deny fs_*(/etc/**)"},
		{"always-ask list", ModeAllowAll, []PolicyOption{AlwaysAsk("deploy")}, preq("deploy", `{}`, classify.Safe), ActionAsk, "always-ask deploy"},
		{"always-approve list", ModeAlwaysAsk, []PolicyOption{AlwaysApprove("read_file")}, preq("read_file", `{}`, classify.Warning), ActionAllow, "always-approve read_file"},
		{"always-ask beats always-approve", ModeAuto, []PolicyOption{AlwaysAsk("x"), AlwaysApprove("x")}, preq("x", `{}`, classify.Safe), ActionAsk, "always-ask x"},
		{"deny rule beats always-ask", ModeAuto, []PolicyOption{AlwaysAsk("x"), DenyRules("x")}, preq("x", `{}`, classify.Safe), ActionRefuse, "deny x"},
		{"auto approves safe", ModeAuto, nil, preq("x", `{}`, classify.Safe), ActionAllow, ""},
		{"auto asks warning", ModeAuto, nil, preq("x", `{}`, classify.Warning), ActionAsk, ""},
		{"auto asks dangerous", ModeAuto, nil, preq("x", `{}`, classify.Dangerous), ActionAsk, ""},
		{"auto refuses blocked", ModeAuto, nil, preq("x", `{}`, classify.Blocked), ActionRefuse, ""},
		{"always_ask asks safe", ModeAlwaysAsk, nil, preq("x", `{}`, classify.Safe), ActionAsk, ""},
		{"allow_all allows dangerous", ModeAllowAll, nil, preq("x", `{}`, classify.Dangerous), ActionAllow, ""},
		{"deny_all refuses safe even with allow rule", ModeDenyAll, []PolicyOption{AllowRules("x")}, preq("x", `{}`, classify.Safe), ActionRefuse, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPolicy(tc.mode, tc.opts...)
			require.NoError(t, err)
			ev := p.Evaluate(nil, tc.req)
			assert.Equal(t, tc.want, ev.Action, ev.Reason)
			assert.Equal(t, tc.rule, ev.Rule)
			assert.NotEmpty(t, ev.Reason)
		})
	}
}

func TestPolicyRequiresApprovalAndRequired(t *testing.T) {
	p := MustPolicy(ModeAllowAll, AllowRules("deploy", "shell(ls*)"), DenyRules("deploy(prod)"))

	r := preq("deploy", `{"command":"staging"}`, classify.Safe)
	r.Spec.RequiresApproval = true
	ev := p.Evaluate(nil, r)
	assert.Equal(t, ActionAsk, ev.Action, "RequiresApproval beats allow rules and allow_all")
	assert.Contains(t, ev.Reason, "requires approval")

	r = preq("deploy", `{"command":"prod"}`, classify.Safe)
	r.Spec.RequiresApproval = true
	assert.Equal(t, ActionRefuse, p.Evaluate(nil, r).Action, "a deny rule beats RequiresApproval")

	r = preq("shell", `{"command":"ls -l"}`, classify.Safe)
	r.Required = "mode lockdown requires approval"
	ev = p.Evaluate(nil, r)
	assert.Equal(t, ActionAsk, ev.Action, "the policy extension's demand beats allow rules")
	assert.Equal(t, "mode lockdown requires approval", ev.Reason)
}

type subjectTool struct{ tool.Tool }

func (subjectTool) Subject(args json.RawMessage) string { return "custom:" + string(args) }

func TestPolicySubjecterAndRequestSubject(t *testing.T) {
	p := MustPolicy(ModeAuto, AskRules(`t(custom:{"x":1})`))
	r := preq("t", `{"x":1}`, classify.Safe)
	ev := p.Evaluate(subjectTool{}, r)
	assert.Equal(t, ActionAsk, ev.Action)
	assert.Equal(t, `custom:{"x":1}`, r.Subject)

	r = preq("t", `{"x":1}`, classify.Safe)
	assert.Equal(t, ActionAllow, p.Evaluate(nil, r).Action, "without the Subjecter there is no subject")
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		opt  PolicyOption
		want string
	}{
		{DenyRules("shell(git"), `missing closing ")"`},
		{AllowRules("shell()"), "empty pattern"},
		{AskRules("she ll(x)"), "is not a tool name"},
		{AlwaysApprove("shell(ls)"), "tool names only"},
		{AllowRules(""), "is not a tool name"},
	}
	for _, tc := range tests {
		_, err := NewPolicy(ModeAuto, tc.opt)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := NewPolicy(Mode(42))
	assert.ErrorContains(t, err, "invalid mode")
	assert.Panics(t, func() { MustPolicy(ModeAuto, DenyRules("(")) })
}

func TestPolicyConfigAndModes(t *testing.T) {
	var c PolicyConfig
	require.NoError(t, json.Unmarshal([]byte(`{"mode":"unsafe-only","deny":["shell(rm *)"],"always_approve":["read_file"]}`), &c))
	p, err := c.Policy()
	require.NoError(t, err)
	assert.Equal(t, ModeAuto, p.Mode())
	assert.Equal(t, ActionRefuse, p.Evaluate(nil, preq("shell", `{"command":"rm -rf /"}`, classify.Safe)).Action)
	assert.Equal(t, ActionAllow, p.Evaluate(nil, preq("read_file", `{}`, classify.Warning)).Action)

	for _, s := range []string{"auto", "always_ask", "allow_all", "deny_all"} {
		m, err := ParseMode(s)
		require.NoError(t, err)
		assert.Equal(t, s, m.String())
	}
	m, err := ParseMode("prompt")
	require.NoError(t, err)
	assert.Equal(t, ModeAlwaysAsk, m)
	_, err = ParseMode("yolo")
	assert.ErrorContains(t, err, "use auto, always_ask")
}

func TestPolicyAsApprover(t *testing.T) {
	p := MustPolicy(ModeAuto, DenyRules("rm"))
	ctx := context.Background()
	d, err := p.Approve(ctx, *preq("ls", `{}`, classify.Safe))
	require.NoError(t, err)
	assert.Equal(t, Approve, d.Kind)
	d, err = p.Approve(ctx, *preq("rm", `{}`, classify.Safe))
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind)
	d, err = p.Approve(ctx, *preq("ls", `{}`, classify.Warning))
	require.NoError(t, err)
	assert.Equal(t, Abstain, d.Kind)
}
