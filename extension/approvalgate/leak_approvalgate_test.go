package approvalgate_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/tool"
)

func leakHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// leakPending waits until q holds the request of call id and returns its
// approval's id. Queue.Next wakes when a request arrives; a request of an
// earlier round still listed (a leak) is passed over here and counted by
// the round that left it.
func leakPending(t *testing.T, q *approval.Queue, call string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		p, err := q.Next(ctx)
		if err != nil {
			t.Fatalf("call %s is not pending; %d are: %v", call, q.Len(), err)
		}
		if p.Request.Call.ID == call {
			return p.ID
		}
	}
}

func TestLeakApprovalsNeverAnsweredTwiceOrLate(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	q := approval.NewQueue()
	gate := approvalgate.New(q, approvalgate.WithTimeout(5*time.Second))
	ex := newExec(t, &ran{}, gate)
	lateTaken, stale := 0, 0
	round := func(i int) {
		c := shellCall("rm -rf build")
		c.ID, c.Session = fmt.Sprintf("c%d", i), fmt.Sprintf("s%d", i)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan *tool.Result, 1)
		go func() { r, _ := ex.Execute(ctx, c); done <- r }()
		defer cancel()
		id := leakPending(t, q, c.ID)
		switch i % 3 {
		case 0: // never answered: the caller gives up, then someone answers late
			cancel()
			<-done
			if err := q.Resolve(id, approval.Approved("late")); !errors.Is(err, approval.ErrNotPending) {
				lateTaken++
			}
		case 1: // answered twice
			require.NoError(t, q.Resolve(id, approval.Approved("me").WithScope(approval.ScopeSessionTool)))
			require.True(t, errors.Is(q.Resolve(id, approval.Denied("you", "no")), approval.ErrNotPending))
			<-done
			gate.Forget(c.Principal.Tenant, c.Session)
		case 2: // the caller gives up; the page lists what waits
			cancel()
			<-done
			if q.Len() != 0 {
				stale++
			}
		}
		cancel()
	}
	for i := range 60 {
		round(i)
	}
	g0, h0 := runtime.NumGoroutine(), leakHeap()
	const n = 1500
	for i := 60; i < n+60; i++ {
		round(i)
	}
	h1 := leakHeap()
	t.Logf("after %d approvals: pending %d, goroutines %d -> %d, heap %d -> %d; late answers taken %d, still listed after the call returned %d",
		n, q.Len(), g0, runtime.NumGoroutine(), h0, h1, lateTaken, stale)
	require.Zero(t, q.Len())
	require.Zero(t, lateTaken, "an answer given after the cancelled call returned was accepted")
	require.Zero(t, stale, "an approval still listed as pending after its call returned")
}
