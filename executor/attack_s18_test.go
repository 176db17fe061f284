package executor_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call's tool name is the model's text, and its id the model's or a
// client's. History held them to MaxRecordFieldBytes, but the events every
// subscriber buffers (and a dashboard sends to every open page) and the
// jobs an executor keeps after they finish (a thousand by default) held
// them whole: a MiB each. They are now cut as a record's are.
func TestAttackS18EventsAndJobsHoldNoLongNames(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
	long := strings.Repeat("é", 1<<19) // a MiB
	bounded := func(what, v string) {
		t.Helper()
		assert.Less(t, len(v), executor.MaxRecordFieldBytes+64, "%s is %d bytes", what, len(v))
		assert.True(t, utf8.ValidString(v), "%s cut inside a character", what)
	}

	events, stop := ex.Subscribe(executor.EventFilter{})
	defer stop()
	_, _ = ex.Execute(context.Background(), tool.Call{ID: long, Name: long, Agent: long, Session: long, Args: []byte(`{}`)})
	for range 2 { // submitted, failed (no tool of that name)
		ev := <-events
		bounded(string(ev.Kind)+" CallID", ev.CallID)
		bounded(string(ev.Kind)+" Tool", ev.Tool)
		bounded(string(ev.Kind)+" Agent", ev.Agent)
		bounded(string(ev.Kind)+" Session", ev.Session)
		assert.True(t, strings.HasSuffix(ev.Tool, " bytes cut]"), "the name says it was cut")
	}

	id, err := ex.Submit(context.Background(), tool.Call{ID: long, Name: long, Agent: long, Args: []byte(`{}`)})
	require.NoError(t, err)
	res, err := ex.Wait(context.Background(), id)
	require.Error(t, err)
	bounded("Result.CallID", res.CallID)
	bounded("Result.Tool", res.Tool)
	st, err := ex.Status(id)
	require.NoError(t, err)
	bounded("JobStatus.CallID", st.CallID)
	bounded("JobStatus.Tool", st.Tool)
	bounded("JobStatus.Agent", st.Agent)
	assert.Len(t, ex.Jobs(executor.JobFilter{Tool: long, Agent: long}), 1, "a filter naming the long name finds the job, as History's does")

	// A short name and id are kept as they are.
	id, err = ex.Submit(context.Background(), tool.Call{ID: "c1", Name: "noop", Args: []byte(`{}`)})
	require.NoError(t, err)
	res, err = ex.Wait(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "c1", res.CallID)
	st, err = ex.Status(id)
	require.NoError(t, err)
	assert.Same(t, res, st.Result)
}

// A call waiting for a lock was told which call holds it: "lock: waiting
// to write "file:f" behind call "globex-7f3a"" (in its queued event, its
// job's Reason and the conflict error it gave up with). Call ids are per
// tenant: a call of acme learnt the id of a call of globex, and that
// globex was working on that file. Another tenant's call is now named as
// such; a call of the same tenant is still named by its id.
func TestAttackS18LockWaitNamesNoOtherTenantsCall(t *testing.T) {
	const secretID = "globex-7f3a-quarterly-layoffs"
	release := make(chan struct{})
	probe := &scProbe{}
	gate := scGateTool("gate", probe, release, scPathResource(tool.Write))
	for _, policy := range []executor.Overflow{executor.Wait, executor.Refuse} {
		ex := executor.MustNew(scRegistry(t, gate), executor.WithConflictPolicy(policy))
		holder, err := ex.Submit(context.Background(), tool.Call{ID: secretID, Name: "gate", Args: []byte(`{"path":"f"}`),
			Principal: tool.Principal{ID: "bob", Tenant: "globex"}})
		require.NoError(t, err)
		scState(t, ex, holder, executor.JobRunning)

		for _, tc := range []struct {
			tenant string
			shown  bool
		}{{"acme", false}, {"globex", true}} {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
			res, _ := ex.Execute(ctx, tool.Call{ID: "c-" + tc.tenant, Name: "gate", Args: []byte(`{"path":"f"}`),
				Principal: tool.Principal{ID: "alice", Tenant: tc.tenant}})
			cancel()
			stop()
			require.NotNil(t, res.Error)
			texts := []string{res.Error.Message}
			for ev := range events {
				texts = append(texts, ev.Reason)
			}
			if policy == executor.Wait {
				require.Len(t, texts, 2, "the error and the queued event")
			}
			for _, s := range texts {
				if tc.shown {
					assert.Contains(t, s, `call "`+secretID+`"`, "%v: a call of the same tenant is named", policy)
				} else {
					assert.NotContains(t, s, secretID, "%v: a call of acme was told globex's call id", policy)
					assert.Contains(t, s, "another tenant", "%v: %s", policy, s)
				}
			}
		}
		release <- struct{}{}
		_, err = ex.Wait(context.Background(), holder)
		require.NoError(t, err)
	}
}

// A view for the principals of no tenant subscribed with an empty Tenant,
// which selects every tenant's events, and skipped the others': its
// buffer filled with them, and the next event it received counted, in
// Dropped, the events of other tenants it never saw. TenantOnly selects
// exactly the tenant named, the empty one included.
func TestAttackS18TenantOnlyFilterCountsNoOtherTenantsDrops(t *testing.T) {
	ex := executor.MustNew(scRegistry(t, scNoop()))
	events, stop := ex.Subscribe(executor.EventFilter{TenantOnly: true, Buffer: 1})
	defer stop()
	run := func(tenant string) {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "noop", Args: []byte(`{}`), Principal: tool.Principal{ID: "p", Tenant: tenant}})
		require.NoError(t, err)
	}
	for range 5 {
		run("acme")
	}
	select {
	case ev := <-events:
		assert.Empty(t, ev.Tenant, "another tenant's event was received")
	default:
	}
	run("") // its submitted event fills the buffer; the others are dropped
	ev := <-events
	assert.Empty(t, ev.Tenant)
	assert.Equal(t, tool.EventSubmitted, ev.Kind)
	assert.Zero(t, ev.Dropped, "the view of no tenant counted other tenants' events among those it missed")
}
