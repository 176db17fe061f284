package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/dashboard"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/metrics"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An approval approves one run, so the same call asked again (a model
// repeating an id and arguments: Gemini's NAME#N) is a new request under
// the same approval id, with the same arguments. A decision sent from a
// card that showed the first request (a second reviewer's page, another
// tab, a click that arrives late) must not decide the second: the person
// approved one run, and the call would run twice.
func TestAttackAStaleCardDoesNotDecideTheCallAskedAgain(t *testing.T) {
	f := newFixture(t)
	call := tool.Call{ID: "write_file#0", Name: "write_file", Args: json.RawMessage(`{"path":"docs/pay.md","content":"once"}`),
		Agent: "coder", Session: "s1", Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func() <-chan *tool.Result {
		done := make(chan *tool.Result, 1)
		go func() {
			res, _ := f.ex.Execute(ctx, call)
			done <- res
		}()
		return done
	}
	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	decide := func(a dashboard.Approval) (int, map[string]string) {
		body, err := json.Marshal(map[string]any{"action": "approve", "args_digest": a.ArgsDigest, "since": a.Since})
		require.NoError(t, err)
		return f.post(t, "/api/approvals/"+a.ID, string(body), hdr.Clone())
	}

	first := run()
	card := f.waitPending(t, 1)[0] // both reviewers' pages show this card
	code, body := decide(card)     // reviewer A approves it
	require.Equal(t, http.StatusOK, code, "%v", body)
	res := <-first
	require.True(t, res.OK(), "%v", res.Error)
	require.Len(t, f.written, 1)
	<-f.written

	// The model repeats the call: a new request, the same id and digest.
	second := run()
	again := f.waitPending(t, 1)[0]
	require.Equal(t, card.ID, again.ID)
	require.Equal(t, card.ArgsDigest, again.ArgsDigest)
	require.False(t, card.Since.Equal(again.Since), "the request asked again arrived later")

	// Reviewer B clicks approve on the card its page still shows.
	code, body = decide(card)
	assert.Equal(t, http.StatusConflict, code, "a decision for the first request decided the call asked again: %v", body)
	select {
	case res := <-second:
		t.Fatalf("the call asked again ended on a decision nobody made for it: ok=%v, %d runs", res.OK(), 1+len(f.written))
	default:
	}
	// The person who sees the new card decides it.
	code, body = decide(again)
	require.Equal(t, http.StatusOK, code, "%v", body)
	select {
	case res := <-second:
		require.True(t, res.OK(), "%v", res.Error)
	case <-time.After(20 * time.Second):
		t.Fatal("the call asked again did not run on its own approval")
	}
}

// newFixtureOn is newFixture with the queue q.
func newFixtureOn(t *testing.T, q *approval.Queue) *fixture {
	t.Helper()
	f := &fixture{queue: q, mem: metrics.NewMemory(), written: make(chan WriteArgs, 16)}
	reg := registry.New()
	reg.MustRegister(tool.Func("write_file", "Write a file in the project", func(_ context.Context, in WriteArgs) (string, error) {
		f.written <- in
		return "wrote " + in.Path, nil
	}, tool.WithRisk(tool.RiskHigh)))
	gate := approvalgate.New(f.queue)
	f.ex = executor.MustNew(reg, executor.WithExtensions(metrics.New(metrics.WithMemory(f.mem)), gate, gate.Guard()))
	h, err := dashboard.New(f.ex, dashboard.WithToken(token), dashboard.WithQueue(f.queue), dashboard.WithMetrics(f.mem))
	require.NoError(t, err)
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

// beforeDecide is a store that runs a function before the next decision,
// after the dashboard has read the request it checks the decision against.
type beforeDecide struct {
	*approval.MemoryStore
	hook atomic.Pointer[func()]
}

func (s *beforeDecide) run() {
	if f := s.hook.Swap(nil); f != nil {
		(*f)()
	}
}

func (s *beforeDecide) Decide(ctx context.Context, id string, d approval.Decision) error {
	s.run()
	return s.MemoryStore.Decide(ctx, id, d)
}

func (s *beforeDecide) DecideRequest(ctx context.Context, id string, since time.Time, d approval.Decision) error {
	s.run()
	return s.MemoryStore.DecideRequest(ctx, id, since, d)
}

// The same, with the request asked again in the moment between the
// dashboard's reading of what waits under the id and its decision: what is
// decided is the request that was checked, or nothing.
func TestAttackACardDecidesTheRequestItWasCheckedAgainst(t *testing.T) {
	store := &beforeDecide{MemoryStore: approval.NewMemoryStore()}
	f := newFixtureOn(t, approval.NewQueue(approval.QueueStore(store)))
	call := tool.Call{ID: "write_file#0", Name: "write_file", Args: json.RawMessage(`{"path":"docs/pay.md","content":"once"}`),
		Agent: "coder", Session: "s1", Principal: tool.Principal{ID: "alice", Tenant: "acme"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := func() <-chan *tool.Result {
		done := make(chan *tool.Result, 1)
		go func() {
			res, _ := f.ex.Execute(ctx, call)
			done <- res
		}()
		return done
	}
	first := run()
	card := f.waitPending(t, 1)[0]
	secondCh := make(chan (<-chan *tool.Result), 1)
	hook := func() { // on the server's goroutine: assert, not require
		// Another reviewer approves the first request; it runs; the model
		// repeats the call, which waits again under the same id.
		defer close(secondCh)
		if !assert.NoError(t, store.MemoryStore.Decide(context.Background(), card.ID, approval.Approved("bob"))) {
			return
		}
		res := <-first
		if !assert.True(t, res.OK(), "%v", res.Error) {
			return
		}
		<-f.written
		secondCh <- run()
		assert.Eventually(t, func() bool {
			list, _ := store.List(context.Background())
			return len(list) == 1 && !list[0].Since.Equal(card.Since)
		}, 10*time.Second, time.Millisecond)
	}
	store.hook.Store(&hook)
	hdr := bearer()
	hdr.Set(dashboard.CSRFHeader, f.csrf(t))
	body, err := json.Marshal(map[string]any{"action": "approve", "args_digest": card.ArgsDigest, "since": card.Since})
	require.NoError(t, err)
	code, out := f.post(t, "/api/approvals/"+card.ID, string(body), hdr)
	second, ok := <-secondCh
	require.True(t, ok, "the hook ran")
	if code == http.StatusOK {
		select {
		case res := <-second:
			t.Fatalf("the decision for the first request decided the call asked again (%v), which ran: ok=%v", out, res.OK())
		case <-time.After(20 * time.Second):
			t.Fatalf("the decision for the first request decided the call asked again: %v", out)
		}
	}
	assert.Equal(t, http.StatusConflict, code, "%v", out)
	assert.Len(t, f.queue.Pending(), 1, "the call asked again still waits for a person")
	assert.Len(t, f.written, 0)
}
