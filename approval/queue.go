package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueueTimeout is how long a Queue waiter waits for a decision when
// no QueueTimeout option says otherwise.
const DefaultQueueTimeout = 5 * time.Minute

// ErrNotPending is matched (errors.Is) by Resolve's error for an id that is
// unknown or already resolved (or whose waiter gave up).
var ErrNotPending = errors.New("approval: no pending request with this id")

// ErrTimeout is matched (errors.Is) by the error of a Queue waiter that got
// no decision within its timeout.
var ErrTimeout = errors.New("approval: no decision before the timeout")

// Pending is a request waiting in a Queue.
type Pending struct {
	// ID is what Resolve takes.
	ID string `json:"id"`
	// Request is what is being asked.
	Request Request `json:"request"`
	// Since is when the request arrived.
	Since time.Time `json:"since"`
}

// Queue is an Approver for UIs and remote humans: each Approve call adds a
// Pending request and waits until someone calls Resolve with its id, the
// caller's context is done, or the timeout passes. It starts no goroutines.
// It is safe for concurrent use; the zero value is not usable, call
// NewQueue.
type Queue struct {
	mu      sync.Mutex
	waiting map[string]*waiter
	seq     atomic.Uint64
	timeout time.Duration
	notify  func(*Queue, Pending)
	// arrived is closed and replaced whenever a request is queued, waking
	// every Next that found nothing to hand out.
	arrived chan struct{}
}

type waiter struct {
	p      Pending
	ch     chan Decision // buffered 1: Resolve never blocks
	handed bool          // returned by Next already
}

// QueueOption configures NewQueue.
type QueueOption func(*Queue)

// QueueTimeout sets how long a waiter waits for a decision (default
// DefaultQueueTimeout). Zero or negative means no timeout: only the
// caller's context bounds the wait.
func QueueTimeout(d time.Duration) QueueOption { return func(q *Queue) { q.timeout = d } }

// OnPending registers fn to be told of each new pending request (to push it
// to a UI), with the queue it waits in so that fn can Resolve it. fn runs on
// the waiter's goroutine and must not block; a UI that pulls rather than
// being pushed to uses [Queue.Next] instead.
func OnPending(fn func(q *Queue, p Pending)) QueueOption {
	return func(q *Queue) { q.notify = fn }
}

// NewQueue returns an empty queue.
func NewQueue(opts ...QueueOption) *Queue {
	q := &Queue{waiting: map[string]*waiter{}, timeout: DefaultQueueTimeout, arrived: make(chan struct{})}
	for _, o := range opts {
		if o != nil {
			o(q)
		}
	}
	return q
}

// Approve queues req and waits for its decision. It returns the context's
// error when ctx is done first, and an error matching ErrTimeout when the
// timeout passes first; in both cases the request leaves the queue.
func (q *Queue) Approve(ctx context.Context, req Request) (Decision, error) {
	w := &waiter{ch: make(chan Decision, 1)}
	w.p = Pending{ID: "apr-" + strconv.FormatUint(q.seq.Add(1), 10), Request: req, Since: time.Now()}
	q.mu.Lock()
	q.waiting[w.p.ID] = w
	close(q.arrived)
	q.arrived = make(chan struct{})
	q.mu.Unlock()
	if q.notify != nil {
		q.notify(q, w.p)
	}
	var timeout <-chan time.Time
	if q.timeout > 0 {
		t := time.NewTimer(q.timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case d := <-w.ch:
		return d, nil
	case <-ctx.Done():
		q.drop(w.p.ID)
		return Decision{}, fmt.Errorf("approval request %s: %w", w.p.ID, ctx.Err())
	case <-timeout:
		q.drop(w.p.ID)
		return Decision{}, fmt.Errorf("approval request %s waited %v: %w", w.p.ID, q.timeout, ErrTimeout)
	}
}

func (q *Queue) drop(id string) {
	q.mu.Lock()
	delete(q.waiting, id)
	q.mu.Unlock()
}

// Pending lists the requests waiting for a decision, oldest first.
func (q *Queue) Pending() []Pending {
	q.mu.Lock()
	out := make([]Pending, 0, len(q.waiting))
	for _, w := range q.waiting {
		out = append(out, w.p)
	}
	q.mu.Unlock()
	slices.SortFunc(out, comparePending)
	return out
}

// comparePending orders requests oldest first, by arrival and then by id.
func comparePending(a, b Pending) int {
	if c := a.Since.Compare(b.Since); c != 0 {
		return c
	}
	return compareIDs(a.ID, b.ID)
}

func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Next waits for a pending request that no earlier Next call has returned,
// and returns the oldest such one: a UI or a worker loops on Next and
// Resolves what it gets. Each request is handed out once, so several
// callers share the work. Next returns ctx's error when ctx is done first.
// A request handed out may still end (timeout, cancelled caller) before it
// is resolved; Resolve then reports ErrNotPending.
func (q *Queue) Next(ctx context.Context) (Pending, error) {
	for {
		q.mu.Lock()
		var oldest *waiter
		for _, w := range q.waiting {
			if !w.handed && (oldest == nil || comparePending(w.p, oldest.p) < 0) {
				oldest = w
			}
		}
		if oldest != nil {
			oldest.handed = true
			p := oldest.p
			q.mu.Unlock()
			return p, nil
		}
		arrived := q.arrived
		q.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return Pending{}, ctx.Err()
		}
	}
}

// Len returns how many requests are waiting.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// Resolve delivers d to the request with id. It fails, and changes nothing,
// when d is malformed (see Decision.Check) or when no request with id is
// pending (unknown, already resolved, or its waiter gave up): that error
// matches ErrNotPending. A waiter whose context ends at the same moment may
// still return its context's error: a decision never outlives its caller.
func (q *Queue) Resolve(id string, d Decision) error {
	if err := d.Check(); err != nil {
		return fmt.Errorf("resolve %s: %w", id, err)
	}
	q.mu.Lock()
	w, ok := q.waiting[id]
	if ok {
		delete(q.waiting, id)
	}
	q.mu.Unlock()
	if !ok {
		return fmt.Errorf("resolve %q: %w (unknown, already resolved, timed out or cancelled): list ids with Pending", id, ErrNotPending)
	}
	w.ch <- d
	return nil
}
