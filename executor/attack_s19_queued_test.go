package executor_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A tool's and the executor's concurrency limits are shared by every
// tenant, and a call waiting for one was told how many calls were queued
// there ("limit: tool "gate" runs 1 calls, its limit; 3 queued"), in its
// queued event, which a tenant's dashboard page shows: how busy the other
// tenants were (found by the dashboard's attacker). Seen failing first (the
// count was there). A call of a tenant waiting in a shared scope is told
// it waits, not for how many others; without tenants the count stays.
func TestAttackS19SharedLimitWaitCountsNoOtherTenantsCalls(t *testing.T) {
	release := make(chan struct{})
	probe := &scProbe{}
	for _, opt := range []executor.Option{executor.WithToolConcurrency(1, "gate"), executor.WithMaxConcurrency(1)} {
		ex := executor.MustNew(scRegistry(t, scGateTool("gate", probe, release)), opt)
		queued, stopQueued := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
		var jobs []executor.JobID
		for i := range 3 { // one runs, two wait
			id, err := ex.Submit(context.Background(), tool.Call{ID: fmt.Sprint("g", i), Name: "gate", Args: []byte(`{}`), Principal: tool.Principal{ID: "bob", Tenant: "globex"}})
			require.NoError(t, err)
			jobs = append(jobs, id)
		}
		for range 2 {
			select {
			case <-queued:
			case <-time.After(10 * time.Second):
				t.Fatal("two of globex's calls never waited")
			}
		}
		stopQueued()

		for _, tc := range []struct {
			tenant  string
			counted bool
		}{{"acme", false}, {"", true}} {
			events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			res, _ := ex.Execute(ctx, tool.Call{ID: "a", Name: "gate", Args: []byte(`{}`), Principal: tool.Principal{ID: "alice", Tenant: tc.tenant}})
			cancel()
			stop()
			require.NotNil(t, res.Error)
			var reasons []string
			for ev := range events {
				if ev.CallID == "a" {
					reasons = append(reasons, ev.Reason)
				}
			}
			require.Len(t, reasons, 1)
			counts := regexp.MustCompile(`\d+ queued`).MatchString(reasons[0])
			assert.Equal(t, tc.counted, counts, "tenant %q: %s", tc.tenant, reasons[0])
			assert.Contains(t, reasons[0], "its limit", "the wait says why")
		}
		for range jobs {
			release <- struct{}{}
		}
		for _, id := range jobs {
			_, err := ex.Wait(context.Background(), id)
			require.NoError(t, err)
		}
	}
}
