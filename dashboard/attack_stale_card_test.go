package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/dashboard"
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
