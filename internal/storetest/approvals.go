// Package storetest holds the contract tests that every implementation of a
// store interface passes: the in-memory stores in this module and the
// shared ones of backend/postgres run the same tests, so that a program
// moving from one to the other sees the same behaviour.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Approvals runs the contract of approval.Store against the stores open
// returns, a new empty one for each subtest.
func Approvals(t *testing.T, open func(t *testing.T) approval.Store) {
	ctx := context.Background()
	pending := func(n int, expires time.Time) approval.Pending {
		req := approval.Request{
			Call:      tool.Call{ID: fmt.Sprint("call-", n), Name: "write", Args: json.RawMessage(`{"path":"a"}`), Principal: tool.Principal{ID: "alice"}},
			Principal: tool.Principal{ID: "alice"},
		}
		// Since is in the past, so that a store keeping times on another
		// clock (a database's) still orders them as given.
		return approval.Pending{ID: approval.RequestID(req), Request: req, Since: time.Now().Add(time.Duration(n) * time.Millisecond).Add(-time.Hour), Expires: expires}
	}
	ids := func(t *testing.T, s approval.Store) []string {
		t.Helper()
		list, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		out := []string{}
		for _, p := range list {
			out = append(out, p.ID)
		}
		return out
	}
	notPending := func(t *testing.T, what string, err error) {
		t.Helper()
		if !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("%s: got %v, want an error matching approval.ErrNotPending", what, err)
		}
	}

	t.Run("list is the pending ones, oldest first, with their requests", func(t *testing.T) {
		s := open(t)
		a, b, c := pending(1, time.Time{}), pending(2, time.Time{}), pending(3, time.Time{})
		for _, p := range []approval.Pending{c, a, b} {
			if err := s.Put(ctx, p); err != nil {
				t.Fatalf("Put: %v", err)
			}
		}
		if err := s.Decide(ctx, b.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if got, want := fmt.Sprint(ids(t, s)), fmt.Sprint([]string{a.ID, c.ID}); got != want {
			t.Errorf("List = %s, want %s (pending, oldest first)", got, want)
		}
		list, _ := s.List(ctx)
		if len(list) > 0 && (list[0].Request.Call.ID != a.Request.Call.ID || string(list[0].Request.Call.Args) != `{"path":"a"}`) {
			t.Errorf("List gave the request %+v, want %+v", list[0].Request.Call, a.Request.Call)
		}
	})

	t.Run("a decision is made once and answers every Await", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, p.ID, approval.Denied("bob", "not today")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		notPending(t, "a second Decide", s.Decide(ctx, p.ID, approval.Approved("mallory")))
		for i := range 3 {
			d, err := s.Await(ctx, p.ID)
			if err != nil || d.Kind != approval.Deny || d.DecidedBy != "bob" || d.Message != "not today" {
				t.Errorf("Await %d = %+v, %v; want bob's denial", i, d, err)
			}
		}
		// Put again (the call run again) changes nothing: the decision stands.
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put of a decided id: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Deny {
			t.Errorf("Await after a second Put = %+v, %v; want the denial", d, err)
		}
	})

	t.Run("a decision stands past its request's expiry", func(t *testing.T) {
		// An approval is delivered once (see below), a denial every time.
		s := open(t)
		// Long enough for the Puts and Decides below on a loaded machine
		// (300 ms was not, under -race beside other tests).
		approved := pending(1, time.Now().Add(2*time.Second))
		denied := pending(2, approved.Expires)
		for _, p := range []approval.Pending{approved, denied} {
			if err := s.Put(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Decide(ctx, approved.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if err := s.Decide(ctx, denied.ID, approval.Denied("bob", "no")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		time.Sleep(time.Until(approved.Expires) + 100*time.Millisecond) // the behaviour under test is the passing of the expiry
		if err := s.Put(ctx, approved); err != nil {
			t.Fatalf("Put: %v", err)
		}
		if d, err := s.Await(ctx, approved.ID); err != nil || d.Kind != approval.Approve {
			t.Fatalf("Await after the expiry = %+v, %v; want the approval", d, err)
		}
		for i := range 20 {
			if err := s.Put(ctx, denied); err != nil {
				t.Fatalf("Put: %v", err)
			}
			if d, err := s.Await(ctx, denied.ID); err != nil || d.Kind != approval.Deny {
				t.Fatalf("Await %d after the expiry = %+v, %v; want the denial", i, d, err)
			}
		}
	})

	t.Run("an approval is delivered once: the same call put again is asked again", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Approve || d.DecidedBy != "bob" {
			t.Fatalf("Await = %+v, %v; want bob's approval", d, err)
		}
		// Delivered, the approval is spent: a second Await does not get it.
		d, err := s.Await(ctx, p.ID)
		if err == nil {
			t.Fatalf("a second Await got %+v: an approval approves one run", d)
		}
		notPending(t, "a second Await of a delivered approval", err)
		// The same call run again (a model repeating pay#0) is a new
		// request: listed, waited for, decided by a person again.
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put after the approval was delivered: %v", err)
		}
		if got, want := fmt.Sprint(ids(t, s)), fmt.Sprint([]string{p.ID}); got != want {
			t.Errorf("List after the same call was put again = %s, want %s (asked again)", got, want)
		}
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		if d, err := s.Await(wctx, p.ID); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Await of the call put again = %+v, %v; want it to wait for a decision", d, err)
		}
		if err := s.Decide(ctx, p.ID, approval.Denied("bob", "once was enough")); err != nil {
			t.Fatalf("Decide of the call put again: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Deny {
			t.Errorf("Await = %+v, %v; want the new denial", d, err)
		}
	})

	t.Run("a decision never delivered is found once (a job retried after a crash)", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		// Decided, and the waiter's process died before Await returned.
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		// The job run again, on this instance or another, finds it.
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put of a decided id: %v", err)
		}
		if got := ids(t, s); len(got) != 0 {
			t.Errorf("List = %v: a decided request is not asked again", got)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Approve || d.DecidedBy != "bob" {
			t.Fatalf("Await of the job run again = %+v, %v; want bob's approval", d, err)
		}
		// Once: run a third time, the call is asked again.
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put: %v", err)
		}
		if got := ids(t, s); len(got) != 1 {
			t.Errorf("List = %v: the call run a third time is asked again", got)
		}
	})

	t.Run("an approval decided as its waiter gives up is withdrawn with it; a denial stands", func(t *testing.T) {
		// The waiter's context ended (the user stopped the turn) and the
		// person's decision landed before it withdrew: the call did not
		// run, and nothing may run on that approval later.
		s := open(t)
		approved, modified, denied := pending(1, time.Now().Add(time.Hour)), pending(2, time.Now().Add(time.Hour)), pending(3, time.Now().Add(time.Hour))
		decisions := map[string]approval.Decision{
			approved.ID: approval.Approved("bob"),
			modified.ID: approval.Modified("bob", json.RawMessage(`{"path":"b"}`)),
			denied.ID:   approval.Denied("bob", "no"),
		}
		for _, p := range []approval.Pending{approved, modified, denied} {
			if err := s.Put(ctx, p); err != nil {
				t.Fatal(err)
			}
			if err := s.Decide(ctx, p.ID, decisions[p.ID]); err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if err := s.Withdraw(ctx, p.ID); err != nil {
				t.Fatalf("Withdraw: %v", err)
			}
		}
		for _, p := range []approval.Pending{approved, modified} {
			// The same call asked again (the model repeating it later).
			if err := s.Put(ctx, p); err != nil {
				t.Fatalf("Put: %v", err)
			}
			wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			d, err := s.Await(wctx, p.ID)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Await of the call asked again = %+v, %v; want it to wait for a person (the %s was given up with its waiter)", d, err, decisions[p.ID].Kind)
			}
			if err := s.Withdraw(ctx, p.ID); err != nil {
				t.Fatalf("Withdraw: %v", err)
			}
		}
		if err := s.Put(ctx, denied); err != nil {
			t.Fatalf("Put: %v", err)
		}
		if d, err := s.Await(ctx, denied.ID); err != nil || d.Kind != approval.Deny {
			t.Errorf("Await of the denied call asked again = %+v, %v; want the denial", d, err)
		}
	})

	t.Run("a decision for one request does not decide the same call asked again", func(t *testing.T) {
		s := open(t)
		rd, ok := s.(approval.RequestDecider)
		if !ok {
			t.Skip("the store is not an approval.RequestDecider")
		}
		p := pending(1, time.Now().Add(time.Hour))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %v, %v", list, err)
		}
		first := list[0]
		if err := rd.DecideRequest(ctx, p.ID, first.Since, approval.Approved("bob")); err != nil {
			t.Fatalf("DecideRequest of the request listed: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Approve {
			t.Fatalf("Await = %+v, %v; want bob's approval", d, err)
		}
		// The same call asked again, later: the same id.
		again := p
		again.Since = p.Since.Add(time.Second)
		if err := s.Put(ctx, again); err != nil {
			t.Fatalf("Put: %v", err)
		}
		// A second reviewer's decision for the first request.
		notPending(t, "DecideRequest for the first request, of the call asked again", rd.DecideRequest(ctx, p.ID, first.Since, approval.Approved("carol")))
		list, err = s.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %v, %v: the call asked again still waits", list, err)
		}
		if list[0].Since.Equal(first.Since) {
			t.Fatalf("the call asked again is listed with the first request's arrival %v", first.Since)
		}
		if err := rd.DecideRequest(ctx, p.ID, list[0].Since, approval.Denied("carol", "once")); err != nil {
			t.Fatalf("DecideRequest of the request listed: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Deny {
			t.Errorf("Await = %+v, %v; want carol's denial", d, err)
		}
	})

	t.Run("of two waiters at once, one gets the approval", func(t *testing.T) {
		// Two instances run the same call (a job taken twice): both put
		// it, both wait, one decision. Exactly one may run; the others'
		// Await ends with ErrNotPending.
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		const n = 8
		for range n {
			if err := s.Put(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		type result struct {
			d   approval.Decision
			err error
		}
		results := make(chan result, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range n {
			wg.Go(func() {
				<-start
				d, err := s.Await(ctx, p.ID)
				results <- result{d, err}
			})
		}
		close(start)
		// Decided while they wait, or before some start: neither may
		// matter.
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the waiters did not all return after Decide")
		}
		close(results)
		approvals := 0
		for r := range results {
			switch {
			case r.err == nil && r.d.Kind == approval.Approve:
				approvals++
			case r.err == nil:
				t.Errorf("a waiter got %+v, want the approval or ErrNotPending", r.d)
			default:
				notPending(t, "a waiter that did not get the approval", r.err)
			}
		}
		if approvals != 1 {
			t.Errorf("%d waiters got the approval, want exactly 1: an approval approves one run", approvals)
		}
		_, err := s.Await(ctx, p.ID)
		notPending(t, "Await after the approval was delivered", err)
	})

	t.Run("Put of a pending id changes nothing: its waiter gets the decision", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		got := approvedAwait(ctx, s, p.ID)
		// The same call asked again (a second waiter, a job run twice),
		// with another arrival and an expiry already past: the request
		// that is pending stays as it was, and so does its waiter.
		again := p
		again.Since, again.Expires = time.Now().Add(-time.Minute), time.Now().Add(-time.Second)
		if err := s.Put(ctx, again); err != nil {
			t.Fatalf("Put of a pending id: %v", err)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 1 || list[0].Expires.Before(p.Expires.Add(-time.Minute)) {
			t.Errorf("List after a second Put = %+v, %v; want the first request, unchanged", list, err)
		}
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		receive(t, got, "the waiter of the first Put never got the decision")
	})

	t.Run("Await ends at the request's expiry", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(300*time.Millisecond))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if _, err := s.Await(wctx, p.ID); !errors.Is(err, approval.ErrTimeout) {
			t.Errorf("Await past the expiry: %v, want an error matching approval.ErrTimeout", err)
		}
		notPending(t, "Decide after the expiry", s.Decide(ctx, p.ID, approval.Approved("bob")))
	})

	t.Run("List gives the request as it was put", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(time.Hour))
		p.Request.Call.Principal = tool.Principal{ID: "alice", Tenant: "acme", Roles: []string{"dev"}}
		p.Request.Principal = p.Request.Call.Principal
		p.Request.Call.Session, p.Request.Call.Agent = "s1", "coder"
		p.Request.Spec = tool.Spec{Name: "write", Description: "Write a file"}
		p.Request.Reasons = []string{"writes a file"}
		p.Request.Subject, p.Request.Required, p.Request.Why = "a", "mode is alert", "the rule asks"
		p.ID = approval.RequestID(p.Request)
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %+v, %v; want one", list, err)
		}
		got := list[0]
		// What an approver is shown is what was asked: who, what, why.
		want, _ := json.Marshal(p.Request)
		have, _ := json.Marshal(got.Request)
		if got.ID != p.ID || string(have) != string(want) {
			t.Errorf("List gave %s %s,\nwant %s %s", got.ID, have, p.ID, want)
		}
		// A store may keep times to the microsecond, on its own clock.
		if d := got.Since.Sub(p.Since); d < -time.Second || d > time.Second {
			t.Errorf("Since = %v, want %v", got.Since, p.Since)
		}
		if d := got.Expires.Sub(p.Expires); d < -time.Second || d > time.Second {
			t.Errorf("Expires = %v, want %v", got.Expires, p.Expires)
		}
	})

	// A principal's id or tenant may hold any bytes (an authenticator's),
	// and arguments are bytes: JSON turns each invalid UTF-8 byte into
	// U+FFFD, so that "alice\xff" and "alice\xfe" would both be shown, and
	// put again, as "alice\uFFFD".
	t.Run("a request of bytes that are not UTF-8 is kept, listed and put again as it is", func(t *testing.T) {
		s := open(t)
		var want []approval.Pending
		for i, who := range []string{"alice\xff", "alice\xfe"} {
			p := pending(i, time.Now().Add(time.Hour))
			p.Request.Principal = tool.Principal{ID: who, Tenant: "acme\xfe", Roles: []string{"dev\xff"}}
			p.Request.Call.Principal, p.Request.Call.Agent = p.Request.Principal, "coder\xff"
			p.Request.Call.Args = json.RawMessage("{\"path\":\"a\xff\"}")
			p.Request.Subject = "a\xff"
			p.ID = approval.RequestID(p.Request)
			if err := s.Put(ctx, p); err != nil {
				t.Fatalf("Put of %q: %v", who, err)
			}
			// The same call asked again (a job retried) waits on it.
			if err := s.Put(ctx, p); err != nil {
				t.Fatalf("Put of %q again: %v", who, err)
			}
			want = append(want, p)
		}
		list, err := s.List(ctx)
		if err != nil || len(list) != len(want) {
			t.Fatalf("List = %+v, %v; want %d", list, err, len(want))
		}
		for i, got := range list {
			w := want[i].Request
			g := got.Request
			if got.ID != want[i].ID || g.Principal.ID != w.Principal.ID || g.Principal.Tenant != w.Principal.Tenant ||
				g.Call.Principal.ID != w.Call.Principal.ID || g.Call.Principal.Tenant != w.Call.Principal.Tenant ||
				fmt.Sprint(g.Call.Principal.Roles) != fmt.Sprint(w.Call.Principal.Roles) || g.Call.Agent != w.Call.Agent ||
				string(g.Call.Args) != string(w.Call.Args) || g.Subject != w.Subject {
				t.Errorf("List[%d] = %s %#v,\nwant %s %#v", i, got.ID, g, want[i].ID, w)
			}
		}
	})

	t.Run("Await waits for the decision", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Time{})
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		got := approvedAwait(ctx, s, p.ID)
		// Decided from another goroutine, as a UI or another instance does;
		// the waiter may not have started waiting yet, which must not matter.
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Fatalf("Decide: %v", err)
		}
		receive(t, got, "Await did not return after Decide")
	})

	t.Run("unknown ids are not pending", func(t *testing.T) {
		s := open(t)
		_, err := s.Await(ctx, "apr-unknown")
		notPending(t, "Await of an unknown id", err)
		notPending(t, "Decide of an unknown id", s.Decide(ctx, "apr-unknown", approval.Approved("bob")))
		if err := s.Withdraw(ctx, "apr-unknown"); err != nil {
			t.Errorf("Withdraw of an unknown id: %v, want nil", err)
		}
	})

	t.Run("a withdrawn request is not pending, and can be asked again", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Time{})
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := s.Withdraw(ctx, p.ID); err != nil {
			t.Fatalf("Withdraw: %v", err)
		}
		notPending(t, "Decide after Withdraw", s.Decide(ctx, p.ID, approval.Approved("bob")))
		_, err := s.Await(ctx, p.ID)
		notPending(t, "Await after Withdraw", err)
		if got := ids(t, s); len(got) != 0 {
			t.Errorf("List after Withdraw = %v, want none", got)
		}
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put after Withdraw: %v", err)
		}
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Errorf("Decide of the request asked again: %v", err)
		}
		// Withdrawing a decided approval not yet delivered takes it too
		// (its waiter gave up as it landed); withdrawing a delivered one
		// changes nothing.
		if err := s.Withdraw(ctx, p.ID); err != nil {
			t.Errorf("Withdraw of a decided id: %v, want nil", err)
		}
		_, err = s.Await(ctx, p.ID)
		notPending(t, "Await after withdrawing a decided approval", err)
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put after Withdraw: %v", err)
		}
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Errorf("Decide of the request asked again: %v", err)
		}
		if d, err := s.Await(ctx, p.ID); err != nil || d.Kind != approval.Approve {
			t.Errorf("Await = %+v, %v; want the approval", d, err)
		}
		if err := s.Withdraw(ctx, p.ID); err != nil {
			t.Errorf("Withdraw of a delivered id: %v, want nil", err)
		}
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put after the approval was delivered: %v", err)
		}
		if got := ids(t, s); len(got) != 1 {
			t.Errorf("List = %v: the call put again after its approval was delivered is asked again", got)
		}
	})

	t.Run("an expired request cannot be decided, is not listed, and can be asked again", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Now().Add(-time.Second))
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		notPending(t, "Decide of an expired request", s.Decide(ctx, p.ID, approval.Approved("bob")))
		if _, err := s.Await(ctx, p.ID); !errors.Is(err, approval.ErrTimeout) {
			t.Errorf("Await of an expired request: %v, want an error matching approval.ErrTimeout", err)
		}
		if got := ids(t, s); len(got) != 0 {
			t.Errorf("List = %v, want no expired request", got)
		}
		p.Expires = time.Now().Add(time.Hour)
		if err := s.Put(ctx, p); err != nil {
			t.Fatalf("Put again: %v", err)
		}
		if err := s.Decide(ctx, p.ID, approval.Approved("bob")); err != nil {
			t.Errorf("Decide of the request asked again: %v", err)
		}
	})

	t.Run("Await ends with its context", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Time{})
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := s.Await(cctx, p.ID); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Await under an ended context: %v, want context.DeadlineExceeded", err)
		}
		if got := ids(t, s); len(got) != 1 {
			t.Errorf("List = %v: a waiter giving up leaves the request (Withdraw takes it out)", got)
		}
	})

	t.Run("one of many racing decisions wins", func(t *testing.T) {
		s := open(t)
		p := pending(1, time.Time{})
		if err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
		const n = 16
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() { errs <- s.Decide(ctx, p.ID, approval.Approved(fmt.Sprint("approver-", i))) })
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, approval.ErrNotPending):
				t.Errorf("a losing Decide: %v, want ErrNotPending", err)
			}
		}
		if won != 1 {
			t.Errorf("%d decisions won, want exactly 1", won)
		}
	})

	t.Run("a Put without an id is refused", func(t *testing.T) {
		s := open(t)
		if err := s.Put(ctx, approval.Pending{}); err == nil {
			t.Error("Put of a request without an id succeeded")
		}
	})
}

// approvedAwait awaits id's decision in a goroutine of its own and sends
// nil when it is an approval, else what was wrong.
func approvedAwait(ctx context.Context, s approval.Store, id string) <-chan error {
	got := make(chan error, 1)
	go func() {
		d, err := s.Await(ctx, id)
		if err == nil && d.Kind != approval.Approve {
			err = fmt.Errorf("decision %+v", d)
		}
		got <- err
	}()
	return got
}

// receive fails t with what got sends, or with stuck after 30 seconds.
func receive(t *testing.T, got <-chan error, stuck string) {
	t.Helper()
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("Await: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal(stuck)
	}
}
