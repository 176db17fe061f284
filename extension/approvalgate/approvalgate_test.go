package approvalgate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// cmdTool is a shell-like test tool that judges its own command.
type cmdTool struct {
	tool.Tool
}

func (cmdTool) Assess(args json.RawMessage) classify.Verdict {
	var in struct{ Command string }
	_ = json.Unmarshal(args, &in)
	switch {
	case strings.HasPrefix(in.Command, "ls"), strings.HasPrefix(in.Command, "git status"):
		return classify.Verdict{Level: classify.Safe}
	case strings.HasPrefix(in.Command, "sudo"):
		return classify.Verdict{Level: classify.Blocked, Reasons: []string{"privilege escalation"}}
	case strings.HasPrefix(in.Command, "rm"):
		return classify.Verdict{Level: classify.Dangerous, Reasons: []string{"deletes files"}}
	}
	return classify.Verdict{Level: classify.Warning, Reasons: []string{"unknown command"}}
}

// ran records the arguments each backend ran with.
type ran struct {
	mu   sync.Mutex
	args []string
}

func (r *ran) add(s string) {
	r.mu.Lock()
	if len(r.args) < 16 {
		r.args = append(r.args, s)
	}
	r.mu.Unlock()
}
func (r *ran) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.args...)
}

type Sum struct {
	A int `json:"a"`
	B int `json:"b"`
}

func setup(t testing.TB, r *ran) *registry.Registry {
	reg := registry.New()
	shell := tool.New("shell", "Run a command", func(_ context.Context, c tool.Call) (*tool.Result, error) {
		r.add(string(c.Args))
		return &tool.Result{Content: []tool.Content{tool.TextContent("ok")}}, nil
	}, tool.WithRisk(tool.RiskHigh), tool.WithInputSchema(json.RawMessage(
		`{"type":"object","properties":{"command":{"type":"string","minLength":1},"timeout":{"type":"integer","maximum":60}},"required":["command"]}`)))
	reg.MustRegister(cmdTool{shell})
	reg.MustRegister(tool.Func("calc", "Add", func(_ context.Context, in Sum) (int, error) {
		r.add("calc")
		return in.A + in.B, nil
	}, tool.WithRisk(tool.RiskLow)))
	reg.MustRegister(tool.Func("deploy", "Deploy", func(_ context.Context, in struct {
		Env string `json:"env"`
	}) (string, error) {
		r.add("deploy:" + in.Env)
		return "deployed", nil
	}, tool.WithApproval()))
	return reg
}

func newExec(t testing.TB, r *ran, ext *approvalgate.Extension, more ...extension.Extension) *executor.Executor {
	exts := append([]extension.Extension{ext, ext.Guard()}, more...)
	return executor.MustNew(setup(t, r), executor.WithExtensions(exts...))
}

func shellCall(cmd string) tool.Call {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return tool.Call{ID: "call-1", Name: "shell", Args: args, Session: "s1"}
}

func fixed(d approval.Decision) approval.Approver {
	return approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) { return d, nil })
}

func requireDenied(t *testing.T, res *tool.Result, err error, want string) {
	t.Helper()
	requireRefused(t, res, err, tool.CodeApprovalDenied, want)
}

func requireRefused(t *testing.T, res *tool.Result, err error, code tool.Code, want string) {
	t.Helper()
	require.Error(t, err)
	require.NotNil(t, res.Error)
	assert.Equal(t, code, res.Error.Code)
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Contains(t, res.Error.Message, want)
}

// noApprover is what the model reads when the approval set-up fails (no
// approver, an approver's error or panic, a malformed decision).
const noApprover = `tool "shell" was not run: it needs a person's approval, and none could be obtained here; do not retry now: tell the user`

func TestFailClosed(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	callerCtx, endCaller := context.WithCancel(context.Background())
	defer endCaller()
	tests := []struct {
		name string
		appr approval.Approver
		opts []approvalgate.Option
		ctx  func() (context.Context, context.CancelFunc)
		cmd  string
		want string
		// cause: the developer's side of a fault in the approval set-up,
		// which the model is not sent (it reads noApprover).
		cause string
	}{
		{name: "no approver", appr: nil, want: noApprover, cause: "no approver is configured: pass an approval.Approver to approvalgate.New"},
		{name: "approver error", appr: approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Approved("x"), errors.New("ui is down")
		}), want: noApprover, cause: "approval could not be obtained: ui is down"},
		{name: "approver panic", appr: approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			panic("oops")
		}), want: noApprover, cause: "the approver panicked: oops"},
		{name: "zero decision", appr: fixed(approval.Decision{}), want: noApprover, cause: "malformed decision"},
		{name: "unknown kind", appr: fixed(approval.Decision{Kind: 42, DecidedBy: "x"}), want: noApprover, cause: "unknown kind 42"},
		{name: "modify without args", appr: fixed(approval.Decision{Kind: approval.Modify, DecidedBy: "x"}), want: noApprover, cause: "carries no arguments"},
		{name: "modify not an object", appr: fixed(approval.Modified("x", json.RawMessage(`"ls"`))), want: noApprover, cause: "malformed decision"},
		{name: "modify breaks the schema", appr: fixed(approval.Modified("x", json.RawMessage(`{"command":"rm -r build","timeout":600}`))), want: "gave in place of the model's are invalid"},
		{name: "abstain", appr: fixed(approval.Decision{Kind: approval.Abstain, DecidedBy: "x"}), want: `tool "shell" was not run: x did not decide (abstained) and nobody else was asked; do not retry now: tell the user`,
			cause: "x abstained and no approver after it decides: chain one that asks a person (approval.FirstDecisive(policy, queue))"},
		{name: "explicit deny reaches the model", appr: fixed(approval.Denied("alice", "use rm -i")), want: "alice denied this call: use rm -i"},
		{name: "timeout", appr: approval.ApproverFunc(func(ctx context.Context, _ approval.Request) (approval.Decision, error) {
			<-ctx.Done()
			return approval.Decision{}, ctx.Err()
		}), opts: []approvalgate.Option{approvalgate.WithTimeout(20 * time.Millisecond)}, want: "no approval decision within 20ms"},
		{name: "timeout with an approver that ignores its context", appr: approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			<-release
			return approval.Approved("late"), nil
		}), opts: []approvalgate.Option{approvalgate.WithTimeout(20 * time.Millisecond)}, want: "no approval decision within"},
		{name: "queue timeout", appr: approval.NewQueue(approval.QueueTimeout(20 * time.Millisecond)), want: "no approval decision in time: the call did not run"},
		{name: "cancelled context", appr: approval.ApproverFunc(func(ctx context.Context, _ approval.Request) (approval.Decision, error) {
			<-ctx.Done()
			return approval.Decision{}, ctx.Err()
		}), ctx: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 30*time.Millisecond)
		},
			want: "cancelled while waiting for approval"},
		{name: "approval that arrives as the context ends", appr: approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			// The caller goes away while the decision is delivered: the
			// cancellation must win.
			endCaller()
			return approval.Approved("x"), nil
		}), ctx: func() (context.Context, context.CancelFunc) {
			return callerCtx, endCaller
		}, want: "cancel"},
		{name: "policy deny_all", appr: fixed(approval.Approved("x")), opts: []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeDenyAll))}, cmd: "ls", want: "deny_all"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ran
			ex := newExec(t, &r, approvalgate.New(tc.appr, tc.opts...))
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			cmd := tc.cmd
			if cmd == "" {
				cmd = "rm -r build"
			}
			res, err := ex.Execute(ctx, shellCall(cmd))
			requireDenied(t, res, err, tc.want)
			if tc.cause != "" {
				assertSpeaksToTheModel(t, res)
				assert.ErrorContains(t, res.Error.Err, tc.cause)
			}
			assert.Empty(t, r.list(), "the backend must not run")
			meta, _ := res.Metadata["approval"].(map[string]any)
			assert.Equal(t, "deny", meta["decision"])
		})
	}
}

// A command the classifier blocks gets the same code whoever refuses it:
// policy_denied, as the shell tool gives it, not approval_denied (nobody
// was asked, and nobody could approve it).
func TestBlockedCommandIsPolicyDenied(t *testing.T) {
	var r ran
	ex := newExec(t, &r, approvalgate.New(fixed(approval.Approved("x")), approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll))))
	res, err := ex.Execute(context.Background(), shellCall("sudo ls"))
	require.ErrorIs(t, err, tool.ErrPolicyDenied)
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Contains(t, res.Error.Message, "privilege escalation")
	assert.Contains(t, res.Error.Message, "blocked")
	assert.Empty(t, r.list(), "the backend must not run")
	meta, _ := res.Metadata["approval"].(map[string]any)
	assert.Equal(t, "deny", meta["decision"])

	// docs/approvals.md names the code a blocked command gets: the one it
	// gets.
	raw, err := os.ReadFile("../../docs/approvals.md")
	require.NoError(t, err)
	m := regexp.MustCompile("level blocked: refuse, [^`]*`[^`]*`[^`]*, with `([a-z_]+)`").FindSubmatch(bytes.Join(bytes.Fields(raw), []byte(" ")))
	require.NotNil(t, m, "docs/approvals.md no longer names the code of a blocked command")
	assert.Equal(t, string(res.Error.Code), string(m[1]), "the documented code is the one a blocked command gets")
}

func TestGuardMissingFailsClosed(t *testing.T) {
	var r ran
	ext := approvalgate.New(fixed(approval.Approved("x")))
	// executor.New refuses the chain outright...
	_, err := executor.New(setup(t, &r), executor.WithExtensions(ext))
	require.Error(t, err)
	assert.ErrorContains(t, err, "add ext.Guard() to the same executor's extensions")
	// ...and a chain built by hand still fails closed at call time.
	reg := setup(t, &r)
	entry, _ := reg.Lookup("calc")
	h := ext.Wrap(func(context.Context, *extension.Request) *tool.Result { r.add("calc"); return &tool.Result{} })
	res := h(context.Background(), &extension.Request{Call: tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":2}`)}, Spec: &entry.Spec})
	require.NotNil(t, res.Error)
	assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	assert.Contains(t, res.Error.Message, `tool "calc" cannot run: approvals are not set up correctly here; do not retry: tell the user`)
	assert.Empty(t, r.list())
	// The model reads the message; the developer's fix is in the cause,
	// which logs show and no model is sent.
	assertSpeaksToTheModel(t, res)
	assert.ErrorContains(t, res.Error.Err, "add ext.Guard()")

	ext = approvalgate.New(fixed(approval.Approved("x")), approvalgate.WithoutGuard())
	ex := executor.MustNew(setup(t, &r), executor.WithExtensions(ext))
	res, err = ex.Execute(context.Background(), tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":2}`)})
	require.NoError(t, err)
	assert.Equal(t, "3", string(res.Output)+res.Text())

	// A guard without its extension denies: nothing was approved.
	other := approvalgate.New(nil)
	ex = executor.MustNew(setup(t, &r), executor.WithExtensions(other.Guard()))
	res, err = ex.Execute(context.Background(), tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":2}`)})
	requireDenied(t, res, err, `tool "calc" cannot run: its approval could not be confirmed; do not retry: tell the user`)
	assertSpeaksToTheModel(t, res)
	assert.ErrorContains(t, res.Error.Err, "without passing its approval extension")
}

// assertSpeaksToTheModel checks that a refusal's message, the text a model
// reads, names no Go API: code advice is for the developer, in the cause.
func assertSpeaksToTheModel(t *testing.T, res *tool.Result) {
	t.Helper()
	for _, dev := range []string{"Guard()", "approvalgate", "WithoutGuard", "executor", "extension"} {
		assert.NotContains(t, res.Error.Message, dev)
	}
	wire, err := json.Marshal(res.Error)
	require.NoError(t, err)
	assert.NotContains(t, string(wire), "Guard()", "the cause is not serialised")
}

func rewriter(prio int, fn func(args json.RawMessage) json.RawMessage) extension.Extension {
	return extension.Func("rewriter", prio, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Call.Args = fn(req.Call.Args)
			return next(ctx, req)
		}
	})
}

func TestApprovalInvalidatedByInnerRewrite(t *testing.T) {
	humanAsked := 0
	human := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		humanAsked++
		return approval.Approved("alice"), nil
	})
	tests := []struct {
		name    string
		cmd     string
		rewrite extension.Extension
		want    string // "" means the call runs with these args
		ran     string
	}{
		{"human-approved call rewritten further in", "rm -r build",
			rewriter(extension.PriorityApproval+50, func(json.RawMessage) json.RawMessage { return json.RawMessage(`{"command":"rm -rf /"}`) }),
			"arguments changed after approval", ""},
		{"auto-approved call rewritten further in", "ls",
			rewriter(extension.PriorityRetry+1, func(json.RawMessage) json.RawMessage { return json.RawMessage(`{"command":"rm -rf ~"}`) }),
			"arguments changed after approval", ""},
		{"buffer edited in place further in", "ls -a",
			rewriter(extension.PriorityCache, func(a json.RawMessage) json.RawMessage {
				copy(a[bytesIndex(a, "ls -a"):], "rm -r")
				return a
			}),
			"arguments changed after approval", ""},
		{"call id changed further in", "ls",
			extension.Func("id", extension.PriorityCache, func(next extension.Handler) extension.Handler {
				return func(ctx context.Context, req *extension.Request) *tool.Result {
					req.Call.ID = "other"
					return next(ctx, req)
				}
			}),
			"the call changed after approval", ""},
		{"binding removed further in", "ls",
			extension.Func("strip", extension.PriorityCache, func(next extension.Handler) extension.Handler {
				return func(_ context.Context, req *extension.Request) *tool.Result {
					return next(context.Background(), req)
				}
			}),
			"its approval could not be confirmed", ""},
		{"same arguments re-encoded further in still run", "ls",
			rewriter(extension.PriorityCache, func(json.RawMessage) json.RawMessage { return json.RawMessage("{ \"command\" : \"ls\" }") }),
			"", "{ \"command\" : \"ls\" }"},
		{"rewrite outside (before) approval is what gets judged", "ls",
			rewriter(extension.PriorityApproval-50, func(json.RawMessage) json.RawMessage { return json.RawMessage(`{"command":"sudo ls"}`) }),
			"privilege escalation", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ran
			ex := newExec(t, &r, approvalgate.New(human), tc.rewrite)
			res, err := ex.Execute(context.Background(), shellCall(tc.cmd))
			if tc.want != "" {
				code := tool.CodeApprovalDenied
				if tc.want == "privilege escalation" {
					code = tool.CodePolicyDenied // the rewritten command is blocked
				}
				requireRefused(t, res, err, code, tc.want)
				assert.Empty(t, r.list(), "the rewritten call must not reach the backend")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{tc.ran}, r.list())
		})
	}
	assert.Equal(t, 1, humanAsked, "only the rm call needed a human")
}

func bytesIndex(b []byte, s string) int { return strings.Index(string(b), s) }

func TestModifyRevalidatedAndRecorded(t *testing.T) {
	var r ran
	var events []tool.Event
	var mu sync.Mutex
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() })
	human := approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		assert.Equal(t, classify.Dangerous, req.Level)
		assert.Equal(t, []string{"deletes files"}, req.Reasons)
		assert.Equal(t, "rm -r build", req.Subject)
		assert.Equal(t, "u1", req.Principal.ID)
		time.Sleep(2 * time.Millisecond) // the person's latency, which the decided event must report (≥ 2 ms below)
		return approval.Modified("alice", json.RawMessage(`{"timeout": 5, "command":"rm -ri build"}`)), nil
	})
	ex := newExec(t, &r, approvalgate.New(human))
	call := shellCall("rm -r build")
	call.Principal = tool.Principal{ID: "u1"}
	res, err := ex.Execute(ctx, call)
	require.NoError(t, err)
	require.Len(t, r.list(), 1)
	assert.JSONEq(t, `{"command":"rm -ri build","timeout":5}`, r.list()[0], "the backend ran with the modified arguments")
	meta, ok := res.Metadata["approval"].(map[string]any)
	require.True(t, ok)
	orig, _ := approval.HashArgs(call.Args)
	now, _ := approval.HashArgs(json.RawMessage(`{"command":"rm -ri build","timeout":5}`))
	assert.Equal(t, "modify", meta["decision"])
	assert.Equal(t, "alice", meta["decided_by"])
	assert.Equal(t, true, meta["modified"])
	assert.Equal(t, orig, meta["original_args_hash"])
	assert.Equal(t, now, meta["args_hash"])
	assert.Equal(t, true, res.Metadata["modified_args"])

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, events, 2)
	assert.Equal(t, tool.EventApprovalRequested, events[0].Kind)
	assert.Contains(t, events[0].Reason, "deletes files")
	assert.Equal(t, "call-1", events[0].CallID)
	assert.Equal(t, tool.EventApprovalDecided, events[1].Kind)
	assert.Equal(t, "modify", events[1].Decision)
	assert.GreaterOrEqual(t, events[1].Latency, 2*time.Millisecond)
}

func TestWhenItAsks(t *testing.T) {
	lockdown := extension.Func("policy", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Set(approval.RequiredKey, "mode lockdown requires approval")
			return next(ctx, req)
		}
	})
	oddFlag := extension.Func("policy", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
		return func(ctx context.Context, req *extension.Request) *tool.Result {
			req.Set(approval.RequiredKey, true)
			return next(ctx, req)
		}
	})
	tests := []struct {
		name   string
		call   tool.Call
		opts   []approvalgate.Option
		more   []extension.Extension
		asked  bool
		reason string
	}{
		{"safe assessed command runs", shellCall("git status"), nil, nil, false, ""},
		{"warning command asks", shellCall("make"), nil, nil, true, "unknown command"},
		{"low-risk func runs", tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":1}`)}, nil, nil, false, ""},
		{"spec requires approval", tool.Call{ID: "1", Name: "deploy", Args: json.RawMessage(`{"env":"prod"}`)}, nil, nil, true, "requires approval"},
		{"policy extension demands approval", tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":1}`)}, nil, []extension.Extension{lockdown}, true, "lockdown"},
		{"a non-string demand still asks", tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":1}`)}, nil, []extension.Extension{oddFlag}, true, "not a reason string"},
		{"ask rule", shellCall("git status"), []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AskRules("shell(git *)")))}, nil, true, "ask shell(git *)"},
		{"allow rule", shellCall("make"), []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto, approval.AllowRules("shell(make*)")))}, nil, false, ""},
		{"always ask mode", tool.Call{ID: "1", Name: "calc", Args: json.RawMessage(`{"a":1,"b":1}`)}, []approvalgate.Option{approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAlwaysAsk))}, nil, true, "always_ask"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ran
			var got *approval.Request
			appr := approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
				got = &req
				return approval.Approved("alice"), nil
			})
			ex := newExec(t, &r, approvalgate.New(appr, tc.opts...), tc.more...)
			res, err := ex.Execute(context.Background(), tc.call)
			require.NoError(t, err)
			assert.Len(t, r.list(), 1)
			if !tc.asked {
				assert.Nil(t, got, "auto-approved")
				assert.Nil(t, res.Metadata["approval"])
				return
			}
			require.NotNil(t, got, "asked")
			assert.Contains(t, got.Why+" "+got.Required+" "+strings.Join(got.Reasons, " "), tc.reason)
			meta := res.Metadata["approval"].(map[string]any)
			assert.Equal(t, "approve", meta["decision"])
			assert.Equal(t, "alice", meta["decided_by"])
		})
	}
}

func TestSessionScopes(t *testing.T) {
	var asked atomic.Int32
	var next atomic.Value
	appr := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		asked.Add(1)
		return next.Load().(approval.Decision), nil
	})
	run := func(ex *executor.Executor, session, cmd string) error {
		c := shellCall(cmd)
		c.Session = session
		_, err := ex.Execute(context.Background(), c)
		return err
	}

	t.Run("these arguments", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ext := approvalgate.New(appr)
		ex := newExec(t, &r, ext)
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionArgs))
		require.NoError(t, run(ex, "s1", "make"))
		require.NoError(t, run(ex, "s1", "make"))
		assert.EqualValues(t, 1, asked.Load(), "same session, tool and args: not asked again")
		require.NoError(t, run(ex, "s1", "make test"))
		assert.EqualValues(t, 2, asked.Load(), "other args: asked")
		require.NoError(t, run(ex, "s2", "make"))
		assert.EqualValues(t, 3, asked.Load(), "other session: asked")
		require.NoError(t, run(ex, "", "make"))
		require.NoError(t, run(ex, "", "make"))
		assert.EqualValues(t, 5, asked.Load(), "no session: never remembered")
		ext.Forget("", "s1")
		require.NoError(t, run(ex, "s1", "make"))
		assert.EqualValues(t, 6, asked.Load(), "forgotten")
	})
	t.Run("this tool", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr))
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionTool))
		require.NoError(t, run(ex, "s1", "make"))
		require.NoError(t, run(ex, "s1", "rm -r x"))
		assert.EqualValues(t, 1, asked.Load(), "any args of the tool in the session")
		assert.Error(t, run(ex, "s1", "sudo rm"), "blocked stays refused despite the session approval")
	})
	// A session id is a string a caller names: another principal (or
	// another tenant's principal with the same id) in a session of the same
	// name gets no decision made for someone else.
	t.Run("the session's principal", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr))
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionTool))
		as := func(p tool.Principal, cmd string) error {
			c := shellCall(cmd)
			c.Session, c.Principal = "s1", p
			_, err := ex.Execute(context.Background(), c)
			return err
		}
		require.NoError(t, as(tool.Principal{ID: "alice", Tenant: "acme"}, "make"))
		require.NoError(t, as(tool.Principal{ID: "alice", Tenant: "acme"}, "make test"))
		assert.EqualValues(t, 1, asked.Load(), "alice's session approval")
		require.NoError(t, as(tool.Principal{ID: "bob", Tenant: "acme"}, "make"))
		assert.EqualValues(t, 2, asked.Load(), "bob in a session of the same name is asked")
		require.NoError(t, as(tool.Principal{ID: "alice", Tenant: "globex"}, "make"))
		assert.EqualValues(t, 3, asked.Load(), "globex's alice is asked")
	})
	t.Run("call only", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr))
		next.Store(approval.Approved("alice"))
		require.NoError(t, run(ex, "s1", "make"))
		require.NoError(t, run(ex, "s1", "make"))
		assert.EqualValues(t, 2, asked.Load())
	})
	t.Run("denial for the session", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr))
		next.Store(approval.Denied("alice", "not today").WithScope(approval.ScopeSessionTool))
		assert.Error(t, run(ex, "s1", "make"))
		err := run(ex, "s1", "make install")
		assert.ErrorContains(t, err, "not today")
		assert.EqualValues(t, 1, asked.Load())
		assert.Empty(t, r.list())
	})
	t.Run("bounded memory", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr, approvalgate.WithSessionMemory(2)))
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionArgs))
		for _, c := range []string{"make a", "make b", "make c"} {
			require.NoError(t, run(ex, "s1", c))
		}
		require.NoError(t, run(ex, "s1", "make c"))
		assert.EqualValues(t, 3, asked.Load(), "newest remembered")
		require.NoError(t, run(ex, "s1", "make a"))
		assert.EqualValues(t, 4, asked.Load(), "oldest forgotten")
	})
	t.Run("memory off", func(t *testing.T) {
		asked.Store(0)
		var r ran
		ex := newExec(t, &r, approvalgate.New(appr, approvalgate.WithSessionMemory(0)))
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionTool))
		require.NoError(t, run(ex, "s1", "make"))
		require.NoError(t, run(ex, "s1", "make"))
		assert.EqualValues(t, 2, asked.Load())
	})
	t.Run("mode demand ignores the memory", func(t *testing.T) {
		asked.Store(0)
		var r ran
		var lockdown atomic.Bool
		policyExt := extension.Func("policy", extension.PriorityPolicy, func(next extension.Handler) extension.Handler {
			return func(ctx context.Context, req *extension.Request) *tool.Result {
				if lockdown.Load() {
					req.Set(approval.RequiredKey, "lockdown")
				}
				return next(ctx, req)
			}
		})
		ex := newExec(t, &r, approvalgate.New(appr), policyExt)
		next.Store(approval.Approved("alice").WithScope(approval.ScopeSessionTool))
		require.NoError(t, run(ex, "s1", "make"))
		lockdown.Store(true)
		require.NoError(t, run(ex, "s1", "make"))
		assert.EqualValues(t, 2, asked.Load())
	})
}

func TestRememberedEventsAndMeta(t *testing.T) {
	var r ran
	var kinds []string
	ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { kinds = append(kinds, string(ev.Kind)+":"+ev.Decision) })
	ex := newExec(t, &r, approvalgate.New(fixed(approval.Approved("alice").WithScope(approval.ScopeSessionTool))))
	_, err := ex.Execute(ctx, shellCall("make"))
	require.NoError(t, err)
	res, err := ex.Execute(ctx, shellCall("make"))
	require.NoError(t, err)
	assert.Equal(t, []string{"approval_requested:", "approval_decided:approve", "approval_decided:approve"}, kinds)
	meta := res.Metadata["approval"].(map[string]any)
	assert.Equal(t, true, meta["remembered"])
	assert.Equal(t, "session_tool", meta["scope"])
}
