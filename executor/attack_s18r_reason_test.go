package executor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/tool"
)

// 04dc23f cut the names and ids of events and jobs to MaxRecordFieldBytes,
// but a queued event's Reason, which a pending job keeps, names them
// again: "limit: agent "<a MiB>" runs 1 calls", "lock: waiting to write
// "file:<a MiB>"". Every subscriber buffered the MiB, and the job held it.
func TestAttackS18RQueuedReasonHoldsNoLongName(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // a MiB
	release := make(chan struct{})
	gate := scGateTool("gate", &scProbe{}, release, scPathResource(tool.Write))
	for _, tc := range []struct{ name, agent, path1, path2 string }{
		{"agent limit", long, "a", "b"},
		{"lock key", "a", long[:1<<18], long[:1<<18]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := executor.MustNew(scRegistry(t, gate), executor.WithAgentConcurrency(1))
			events, stop := ex.Subscribe(executor.EventFilter{Kinds: []tool.EventKind{tool.EventQueued}})
			defer stop()
			first, err := ex.Submit(context.Background(), tool.Call{ID: "c1", Name: "gate", Agent: tc.agent, Args: []byte(`{"path":"` + tc.path1 + `"}`)})
			require.NoError(t, err)
			scState(t, ex, first, executor.JobRunning)
			second, err := ex.Submit(context.Background(), tool.Call{ID: "c2", Name: "gate", Agent: tc.agent, Args: []byte(`{"path":"` + tc.path2 + `"}`)})
			require.NoError(t, err)
			var ev tool.Event
			select {
			case ev = <-events:
			case <-time.After(30 * time.Second):
				t.Fatal("no queued event")
			}
			st, err := ex.Status(second)
			require.NoError(t, err)
			assert.Less(t, len(ev.Reason), 8<<10, "the queued event's Reason is %d bytes", len(ev.Reason))
			assert.Less(t, len(st.Reason), 8<<10, "the job's Reason is %d bytes", len(st.Reason))
			for range 2 {
				release <- struct{}{}
			}
			_, err = ex.Wait(context.Background(), first)
			require.NoError(t, err)
			_, err = ex.Wait(context.Background(), second)
			require.NoError(t, err)
		})
	}
}
