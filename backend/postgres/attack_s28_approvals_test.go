package postgres_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A person approves a call with its arguments changed, keeping the NUL the
// model put in them ("\u0000"), as the waiter gives up (its client went
// away). Withdraw must take the undelivered approval back: the call did
// not run, and asked again it is a new question. Withdraw read the
// decision's kind with ->>, which PostgreSQL cannot do in a json value
// holding \u0000 or a lone surrogate anywhere: it failed, the approval
// stayed, and the same call asked again later ran on it without anyone
// seeing the new request. A denial stands, whatever its reason holds.
func TestAttackS28AnApprovalHoldingANULIsWithdrawn(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := within(t, time.Minute)

	for i, d := range []approval.Decision{
		approval.Modified("ops", json.RawMessage(`{"path":"a\u0000c"}`)),
		approval.Modified("ops", json.RawMessage(`{"path":"\ud800"}`)),
		{Kind: approval.Approve, DecidedBy: "ops\x00"},
	} {
		req := approval.Request{Call: tool.Call{ID: "w" + string(rune('0'+i)), Name: "write", Args: json.RawMessage(`{"path":"a\u0000b"}`)},
			Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
		p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
		require.NoError(t, s.Approvals.Put(ctx, p))
		require.NoError(t, s.Approvals.Decide(ctx, p.ID, d))
		assert.NoError(t, s.Approvals.Withdraw(ctx, p.ID), "%s: the waiter gave up as the approval landed", d.Args)

		// Asked again: pending, for a person to decide.
		p.Since = time.Now()
		require.NoError(t, s.Approvals.Put(ctx, p))
		list, err := s.Approvals.List(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1, "%s: the call asked again is not pending (the approval its waiter gave up is still there)", d.Args)
		require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Approved("carol")))
		got, err := s.Approvals.Await(ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, "carol", got.DecidedBy, "%s: the call ran on the approval given before", d.Args)
	}

	req := approval.Request{Call: tool.Call{ID: "deny", Name: "write", Args: json.RawMessage(`{}`)}, Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
	require.NoError(t, s.Approvals.Put(ctx, p))
	require.NoError(t, s.Approvals.Decide(ctx, p.ID, approval.Denied("ops", "no \x00 way")))
	require.NoError(t, s.Approvals.Withdraw(ctx, p.ID))
	d, err := s.Approvals.Await(context.WithoutCancel(ctx), p.ID)
	require.NoError(t, err)
	assert.Equal(t, approval.Deny, d.Kind, "a denial stands")
}

// A call the approval gate asks about carries its tool (Request.Tool, for
// the policy), and its request is kept gob-encoded when JSON cannot keep
// it: arguments holding U+FFFD (a model writes it; JSON cannot tell it
// from a byte that was not UTF-8), a principal of any bytes. gob refused
// the tool, an interface value of a type it was never told of: the
// request was never put, and the call failed without anyone seeing it.
func TestAttackS28ARequestOfAnyTextIsAsked(t *testing.T) {
	dsn := database(t)
	ctx := within(t, time.Minute)
	var ran atomic.Int64
	reg := registry.New()
	reg.MustRegister(tool.Func("write", "Write a note", func(_ context.Context, in struct {
		Note string `json:"note"`
	}) (string, error) {
		ran.Add(1)
		return "ok", nil
	}, tool.WithApproval()))
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	asked := make(chan struct{}, 1)
	q := approval.NewQueue(approval.QueueStore(s.Approvals), approval.QueueTimeout(time.Minute),
		approval.OnPending(func(*approval.Queue, approval.Pending) {
			select {
			case asked <- struct{}{}:
			default:
			}
		}))
	gate := approvalgate.New(q)
	ex, err := executor.New(reg, executor.WithExtensions(gate, gate.Guard()))
	require.NoError(t, err)
	reviewer := postgres.New(newPool(t, dsn))
	t.Cleanup(reviewer.Close)

	for _, c := range []tool.Call{
		{ID: "fffd", Args: json.RawMessage(`{"note":"caf` + "\uFFFD" + `"}`), Principal: tool.Principal{ID: "alice", Tenant: "acme"}},
		{ID: "bytes", Args: json.RawMessage(`{"note":"x"}`), Principal: tool.Principal{ID: "alice\xff", Tenant: "acme"}},
	} {
		c.Name = "write"
		done := make(chan *tool.Result, 1)
		go func() {
			res, _ := ex.Execute(ctx, c)
			done <- res
		}()
		select {
		case <-asked:
		case res := <-done:
			t.Fatalf("%s: the call ended before anyone saw it: %+v", c.ID, res.Error)
		case <-ctx.Done():
			t.Fatalf("%s: the request was neither put nor refused", c.ID)
		}
		list, err := reviewer.Approvals.List(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1, "%s: the reviewer sees the request", c.ID)
		assert.Equal(t, string(c.Args), string(list[0].Request.Call.Args))
		assert.Equal(t, c.Principal, list[0].Request.Principal)
		require.NoError(t, reviewer.Approvals.Decide(ctx, list[0].ID, approval.Approved("ops")))
		res := <-done
		require.Equal(t, tool.StatusSucceeded, res.Status, "%s: %+v", c.ID, res.Error)
	}
	assert.EqualValues(t, 2, ran.Load())
}

// A principal's id of any bytes (alice\xff): encoding/json writes the
// byte as the escape \ufffd, which the check for what JSON cannot keep
// did not look for, so the request was kept as JSON alone, as alice\uFFFD.
// The same request put again while pending (its job run again on another
// instance) was then refused as another request's, and the call failed;
// alice\xfe's list entry read as alice\xff's.
func TestAttackS28ARequestOfAPrincipalOfAnyBytesIsKeptExactly(t *testing.T) {
	dsn := database(t)
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	ctx := within(t, time.Minute)
	for _, who := range []string{"alice\xff", "alice\xfe"} {
		req := approval.Request{Call: tool.Call{ID: "c", Name: "pay", Args: json.RawMessage(`{}`)}, Principal: tool.Principal{ID: who, Tenant: "acme"}}
		p := approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now(), Expires: time.Now().Add(time.Minute)}
		require.NoError(t, s.Approvals.Put(ctx, p))
		assert.NoError(t, s.Approvals.Put(ctx, p), "%q: the same request put again while pending", who)
	}
	list, err := s.Approvals.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	got := map[string]bool{}
	for _, p := range list {
		got[p.Request.Principal.ID] = true
	}
	assert.Equal(t, map[string]bool{"alice\xff": true, "alice\xfe": true}, got, "the principals as they asked")
}
