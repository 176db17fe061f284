package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/toolbelt/tool"
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
	// ID is what Resolve takes (see RequestID).
	ID string `json:"id"`
	// Request is what is being asked.
	Request Request `json:"request"`
	// Since is when the request arrived.
	Since time.Time `json:"since"`
	// Expires, when set, is when the request stops waiting.
	Expires time.Time `json:"expires,omitzero"`
}

// Queue is an Approver for UIs and remote humans: each Approve call puts a
// Pending request in the queue's Store and waits until someone decides it
// (Resolve, or Decide on the store from any instance sharing it), the
// caller's context is done, or the timeout passes. It starts no goroutines.
// It is safe for concurrent use; the zero value is not usable, call
// NewQueue.
//
// # Tenants
//
// One queue (one store shared by a fleet) may hold the requests of many
// tenants. The person who lists and decides them is the principal the
// context carries (tool.WithPrincipal, as a host's sign-in puts it on a
// request's context): when that principal has a Tenant, PendingContext
// and Next show, and ResolvePending and ResolveContext decide, the
// requests of that tenant (Request.Principal.Tenant) only; another
// tenant's request is answered as an id that is not pending, so that
// whether it waits stays that tenant's business. A context with no
// principal, or a principal of no tenant (the operator of a single-tenant
// app, or of the whole instance), sees and decides every request, as
// Pending, Len and Resolve always do. That is the default because the
// requests of a single-tenant app have no tenant either, and an operator
// of a shared instance must reach every tenant's: a host that serves
// tenants gives each of their people a principal with their tenant. The
// Store itself is not limited: whoever holds it reaches every request.
type Queue struct {
	store   Store
	timeout time.Duration
	notify  func(*Queue, Pending)
	poll    time.Duration

	mu sync.Mutex
	// arrived is closed and replaced whenever this queue puts a request,
	// waking every Next that found nothing to hand out.
	arrived chan struct{}
	handed  map[handedKey]bool // requests Next returned, while they are pending
}

// handedKey names one request: its id and its arrival. The same call asked
// again after its approval was delivered has the id of the request handed
// out before, and is a new question for a person.
type handedKey struct {
	id    string
	since int64
}

func keyOf(p Pending) handedKey { return handedKey{p.ID, p.Since.UnixNano()} }

// QueueOption configures NewQueue.
type QueueOption func(*Queue)

// QueueTimeout sets how long a waiter waits for a decision (default
// DefaultQueueTimeout). Zero or negative means no timeout: only the
// caller's context bounds the wait.
func QueueTimeout(d time.Duration) QueueOption { return func(q *Queue) { q.timeout = d } }

// OnPending registers fn to be told of each new pending request (to push it
// to a UI), with the queue it waits in so that fn can Resolve it. fn runs on
// the waiter's goroutine and must not block; a UI that pulls rather than
// being pushed to uses [Queue.Next] instead. fn is told of every tenant's
// requests (it has no person's context: see Queue, Tenants): a UI it
// pushes to sends each person their tenant's (p.Request.Principal.Tenant).
func OnPending(fn func(q *Queue, p Pending)) QueueOption {
	return func(q *Queue) { q.notify = fn }
}

// QueueStore keeps the queue's approvals in s instead of this process's
// memory: with a shared store (backend/postgres), a request put by one
// instance can be listed and decided from another.
func QueueStore(s Store) QueueOption { return func(q *Queue) { q.store = s } }

// QueuePoll sets how often Next looks at a shared store for requests other
// instances put (default one second); requests put through this queue wake
// Next at once.
func QueuePoll(d time.Duration) QueueOption { return func(q *Queue) { q.poll = d } }

// NewQueue returns an empty queue.
func NewQueue(opts ...QueueOption) *Queue {
	q := &Queue{timeout: DefaultQueueTimeout, poll: time.Second, arrived: make(chan struct{}), handed: map[handedKey]bool{}}
	for _, o := range opts {
		if o != nil {
			o(q)
		}
	}
	if q.store == nil {
		q.store = NewMemoryStore()
	}
	if q.poll <= 0 {
		q.poll = time.Second
	}
	return q
}

// Store returns the store the queue keeps its approvals in.
func (q *Queue) Store() Store { return q.store }

// Approve queues req and waits for its decision. It returns the context's
// error when ctx is done first, and an error matching ErrTimeout when the
// timeout passes first; in both cases the request leaves the queue, with
// an approval that landed as it gave up (nothing ran on it). An
// approval it returns approves this one run: the same call asked again
// (same id, tool, session, arguments, principal and agent: see RequestID)
// is asked again, unless its earlier approval was never delivered (a job
// retried after its process died while waiting), which it then gets, once.
// A denial of the same call is found again without asking. When the same
// call waits in two places at once (two instances), one gets an approval
// and the other an error matching ErrNotPending: it does not run.
func (q *Queue) Approve(ctx context.Context, req Request) (Decision, error) {
	now := time.Now()
	p := Pending{ID: RequestID(req), Request: req, Since: now}
	if q.timeout > 0 {
		p.Expires = now.Add(q.timeout)
	}
	if err := q.store.Put(ctx, p); err != nil {
		return Decision{}, fmt.Errorf("approval request %s could not be queued: %w", p.ID, err)
	}
	q.mu.Lock()
	close(q.arrived)
	q.arrived = make(chan struct{})
	q.mu.Unlock()
	if q.notify != nil {
		q.notify(q, p)
	}
	d, err := q.store.Await(ctx, p.ID)
	if err != nil {
		// Not pending (withdrawn, or its approval delivered to another
		// waiter): nothing of this waiter's is left to withdraw, and the id
		// may be pending again for another run of the call.
		if errors.Is(err, ErrNotPending) {
			return Decision{}, err
		}
		_ = q.store.Withdraw(context.WithoutCancel(ctx), p.ID)
		if errors.Is(err, ErrTimeout) {
			return Decision{}, fmt.Errorf("approval request %s waited %v: %w", p.ID, q.timeout, ErrTimeout)
		}
		return Decision{}, err
	}
	return d, nil
}

// Pending lists the requests waiting for a decision, oldest first (none
// when the store cannot be read: PendingContext says why).
func (q *Queue) Pending() []Pending {
	out, _ := q.PendingContext(context.Background())
	return out
}

// PendingContext is Pending with a context and the store's error: the
// requests the principal ctx carries may decide (see Queue, Tenants).
func (q *Queue) PendingContext(ctx context.Context) ([]Pending, error) {
	list, err := q.store.List(ctx)
	out := []Pending{}
	dc := deciderOf(ctx)
	for _, p := range list {
		if dc.sees(p) {
			out = append(out, p)
		}
	}
	return out, err
}

// decider is who lists and decides through a Queue: the tenant of the
// principal a context carries, if it has one (see Queue, Tenants).
type decider struct {
	tenant  string
	limited bool // the principal has a tenant: its requests only
}

func deciderOf(ctx context.Context) decider {
	p, ok := tool.PrincipalFrom(ctx)
	if !ok || p.Tenant == "" {
		return decider{}
	}
	return decider{tenant: p.Tenant, limited: true}
}

// sees says whether the decider may see and decide p: the one rule by
// which a queue limits a tenant's people to its requests.
func (dc decider) sees(p Pending) bool {
	return !dc.limited || p.Request.Principal.Tenant == dc.tenant
}

// notPendingHelp ends the error of a resolve refused as not pending:
// what may have happened (what), the tenant rule for a limited decider
// (the same words whether the id is another tenant's or nobody's), and
// where to find the ids it may decide.
func (dc decider) notPendingHelp(what string) string {
	if !dc.limited {
		return "(" + what + "): list ids with Pending"
	}
	return fmt.Sprintf("(%s; a decider whose principal has a tenant, here tenant %q, lists and decides that tenant's requests only): list the ids it may decide with PendingContext under the same context",
		what, dc.tenant)
}

// comparePending orders requests oldest first, by arrival and then by id.
func comparePending(a, b Pending) int {
	if c := a.Since.Compare(b.Since); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Next waits for a pending request that no earlier Next call on this queue
// has returned, and returns the oldest such one: a UI or a worker loops on
// Next and resolves what it gets (ResolvePending). Each request is handed
// out once, so several callers share the work; the same call asked again
// after its approval was delivered is a new request, under the same id.
// Next returns ctx's error when ctx is done first. A request handed out
// may still end (timeout, cancelled caller) before it is resolved;
// ResolvePending then reports ErrNotPending. A ctx whose principal has a
// tenant is handed that tenant's requests only (see Queue, Tenants).
func (q *Queue) Next(ctx context.Context) (Pending, error) {
	dc := deciderOf(ctx)
	for {
		q.mu.Lock()
		arrived := q.arrived
		q.mu.Unlock()
		list, err := q.store.List(ctx)
		if err != nil && ctx.Err() != nil {
			return Pending{}, ctx.Err()
		}
		q.mu.Lock()
		var next *Pending
		live := make(map[handedKey]bool, len(list))
		for i := range list {
			k := keyOf(list[i])
			live[k] = true
			// Every request is live (another tenant's person may hold it);
			// only those of this decider are handed out.
			if next == nil && !q.handed[k] && dc.sees(list[i]) {
				next = &list[i]
			}
		}
		for k := range q.handed {
			if !live[k] {
				delete(q.handed, k)
			}
		}
		if next != nil {
			q.handed[keyOf(*next)] = true
			q.mu.Unlock()
			return *next, nil
		}
		q.mu.Unlock()
		t := time.NewTimer(q.poll)
		select {
		case <-arrived:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Pending{}, ctx.Err()
		}
		t.Stop()
	}
}

// Len returns how many requests are waiting.
func (q *Queue) Len() int { return len(q.Pending()) }

// Resolve delivers d to the request with id. It fails, and changes nothing,
// when d is malformed (see Decision.Check) or when no request with id is
// pending (unknown, already resolved, or its waiter gave up): that error
// matches ErrNotPending. A waiter whose context ends at the same moment may
// still return its context's error: a decision never outlives its caller.
// The id names the call, not the request: when the same call was asked
// again after an earlier decision, Resolve decides the request waiting
// now. A reviewer answering a request it was shown uses ResolvePending.
func (q *Queue) Resolve(id string, d Decision) error {
	return q.ResolveContext(context.Background(), id, d)
}

// ResolvePending is ResolveContext for the request p, as Pending,
// PendingContext or Next returned it: it decides that request and no
// other. An approval approves one run, so the same call asked again after
// p was decided waits under p.ID, with the same arguments; a decision made
// seeing p (a reviewer's late click, a second reviewer's) does not decide
// it, and the error matches ErrNotPending. The store decides atomically
// when it is a RequestDecider (MemoryStore and backend/postgres are);
// with another, the request is first looked up in its list, which leaves a
// moment in which the request under p.ID can change. A ctx whose
// principal has a tenant decides that tenant's requests only (see Queue,
// Tenants): the request is looked up in the list, whatever p says of it.
func (q *Queue) ResolvePending(ctx context.Context, p Pending, d Decision) error {
	if err := d.Check(); err != nil {
		return fmt.Errorf("resolve %s: %w", p.ID, err)
	}
	dc := deciderOf(ctx)
	if err := q.decide(ctx, dc, p.ID, &p.Since, d); err != nil {
		if errors.Is(err, ErrNotPending) {
			return fmt.Errorf("resolve %q: %w %s", p.ID, err, dc.notPendingHelp("unknown, already resolved, timed out, cancelled, or the call asked again since"))
		}
		return fmt.Errorf("resolve %q: %w", p.ID, err)
	}
	return nil
}

// ResolveContext is Resolve with a context for the store. A ctx whose
// principal has a tenant decides that tenant's requests only (see Queue,
// Tenants): the request waiting under id is looked up in the store's
// list, and that request is decided.
func (q *Queue) ResolveContext(ctx context.Context, id string, d Decision) error {
	if err := d.Check(); err != nil {
		return fmt.Errorf("resolve %s: %w", id, err)
	}
	dc := deciderOf(ctx)
	if err := q.decide(ctx, dc, id, nil, d); err != nil {
		if errors.Is(err, ErrNotPending) {
			return fmt.Errorf("resolve %q: %w %s", id, ErrNotPending, dc.notPendingHelp("unknown, already resolved, timed out or cancelled"))
		}
		return fmt.Errorf("resolve %q: %w", id, err)
	}
	return nil
}

// decide records d for the request pending under id that dc may decide,
// and, when since is not nil, only if it arrived then. The request is
// looked up in the store's list first when its tenant must be checked, or
// its arrival and the store cannot check it as it decides; a
// RequestDecider then decides the request found and no other.
func (q *Queue) decide(ctx context.Context, dc decider, id string, since *time.Time, d Decision) error {
	rd, atomic := q.store.(RequestDecider)
	if dc.limited || (since != nil && !atomic) {
		list, err := q.store.List(ctx)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(list, func(l Pending) bool {
			return l.ID == id && (since == nil || l.Since.Equal(*since)) && dc.sees(l)
		})
		switch {
		case i < 0 && since != nil:
			return fmt.Errorf("approval %s that arrived at %s: %w", id, since.Format(time.RFC3339Nano), ErrNotPending)
		case i < 0:
			return fmt.Errorf("approval %s: %w", id, ErrNotPending)
		case since == nil:
			since = &list[i].Since
		}
	}
	if since != nil && atomic {
		return rd.DecideRequest(ctx, id, *since, d)
	}
	return q.store.Decide(ctx, id, d)
}
