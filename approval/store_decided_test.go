package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// A decision stands past its request's expiry: a job run again after it (a
// retry, another instance) finds the decision, every time. Await used to
// select between the decision and the expiry timer, both ready, and so
// answered ErrTimeout about half the time. (An approval is found once, so
// each of the 200 tries has a decision of its own.)
func TestMemoryStoreDecisionOutlivesExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := NewMemoryStore()
		var ps []Pending
		for i := range 200 {
			p := Pending{ID: fmt.Sprint("apr-", i), Since: time.Now(), Expires: time.Now().Add(time.Minute)}
			require.NoError(t, s.Put(ctx, p))
			require.NoError(t, s.Decide(ctx, p.ID, Approved("alice")))
			ps = append(ps, p)
		}
		time.Sleep(2 * time.Minute) // the requests' expiry has passed

		timeouts := 0
		for _, p := range ps {
			require.NoError(t, s.Put(ctx, p), "the job run again asks again")
			d, err := s.Await(ctx, p.ID)
			if errors.Is(err, ErrTimeout) {
				timeouts++
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, Approve, d.Kind)
		}
		assert.Zero(t, timeouts, "Await answered ErrTimeout for a decided approval")
	})
}

// A decided approval keeps its decision, not its request: a MemoryStore keeps
// DefaultDecisionRetention of them, and requests carry the call's arguments
// (up to a megabyte each), which would add up to gigabytes.
func TestMemoryStoreDecidedKeepNoArguments(t *testing.T) {
	const n, size = 100, 1 << 20
	ctx := context.Background()
	s := NewMemoryStore()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range n {
		args, err := json.Marshal(map[string]string{"text": strings.Repeat("x", size)})
		require.NoError(t, err)
		p := Pending{ID: fmt.Sprint("apr-", i), Request: Request{Call: tool.Call{Name: "write", Args: args}}}
		require.NoError(t, s.Put(ctx, p))
		require.NoError(t, s.Decide(ctx, p.ID, Denied("bob", "no")))
	}
	grew := int64(heap()) - int64(before)
	assert.Less(t, grew, int64(n*size/10), "decided approvals kept %d MB of arguments", grew>>20)
	d, err := s.Await(ctx, "apr-7")
	require.NoError(t, err)
	assert.Equal(t, Deny, d.Kind, "the decision is kept")
	runtime.KeepAlive(s)
}
