package approval

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Store keeps the approvals a Queue waits on, so that whoever decides —
// a UI in this process, or any instance of a fleet sharing a database —
// reaches the call that waits. MemoryStore is the default; backend/postgres
// has a shared one.
//
// An approval has an id (see RequestID), a request, and a state: pending,
// decided (once), delivered (an approval Await returned) or withdrawn (its
// waiter gave up). Implementations must be safe for concurrent use.
//
// An approval approves one run. A decision that lets the call run
// (approve, modify, or any kind but deny) is delivered once: the first
// Await to return it spends it, and the same id put again afterwards is a
// new pending request that a person decides again. Until it is delivered
// it is found by whoever puts and awaits the id, so a job whose process
// died between the decision and its Await returning (retried on this
// instance or another) runs on it, once. A denial stands: every later
// Put and Await of the id find it, as finding a refusal again can only
// keep a call from running. Of several waiters of one id at once (two
// instances running the same call), exactly one gets an approval; the
// others' Await returns an error matching ErrNotPending (the call does
// not run), or, when the id was put again meanwhile, waits for that
// request's decision.
type Store interface {
	// Put records p as pending. When p.ID is already pending it changes
	// nothing; when it was decided, the decision stands until it is
	// delivered, and a denial for good (Await returns it at once: a job
	// run again finds its earlier decision); when it was delivered or
	// withdrawn, or is pending but expired (its waiter died without
	// withdrawing it), it is pending again, as p says.
	Put(ctx context.Context, p Pending) error
	// Await waits for id's decision, and spends an approval it returns.
	// It returns an error matching ErrTimeout when p.Expires passes first,
	// ErrNotPending when id is unknown, withdrawn, or its approval was
	// delivered (to this waiter before, or to another), and ctx's error
	// when ctx ends first.
	Await(ctx context.Context, id string) (Decision, error)
	// Decide records d for id, once: an id that is not pending (unknown,
	// decided, withdrawn or expired) gives an error matching ErrNotPending.
	Decide(ctx context.Context, id string, d Decision) error
	// Withdraw takes a pending id out of the queue (its waiter gave up); a
	// later Decide fails with ErrNotPending. An approval of id decided and
	// not yet delivered goes too: it landed as its waiter gave up (the
	// caller's context ended), the call did not run, and the same call
	// asked again later is a new question (only a waiter that never came
	// back, its process dead, leaves an approval for the job retried). A
	// denial stands.
	Withdraw(ctx context.Context, id string) error
	// List returns the pending, unexpired approvals, oldest first.
	List(ctx context.Context) ([]Pending, error)
}

// RequestDecider is a Store that decides one request of an id: the one
// that arrived at since (its Pending.Since as List returned it). An
// approval approves one run, so the same call asked again after its
// approval was delivered waits under the same id; a decision a person made
// seeing the earlier request must not decide it. Queue.ResolvePending
// uses it; MemoryStore and backend/postgres implement it.
type RequestDecider interface {
	// DecideRequest is Decide, and fails (ErrNotPending) unless the
	// request pending under id arrived at since.
	DecideRequest(ctx context.Context, id string, since time.Time, d Decision) error
}

// RequestID is the id of the approval for req: derived from the call's id,
// tool, session, principal (tenant, id and roles), agent and the canonical
// hash of its arguments, so the same call run again (a job retried on
// another instance) asks the same question and finds the same answer,
// while different arguments, or another principal, role set or agent, are
// a different question. A call without an id gets a random one: nothing
// can be found again. An approval approves one run (see Store): found
// once by the same call run again before it was delivered, then spent, so
// a model that repeats an id and arguments (wire.Gemini's NAME#N in every
// turn, a local server numbering calls afresh, an MCP client reusing ids)
// is asked again, not run on the earlier approval; a denial of it stands.
// agent.Run still gives each call an id new in the conversation, so that
// a denial of one call is not found by a later one; a loop of your own
// should too.
func RequestID(req Request) string {
	h := sha256.New()
	callID := req.Call.ID
	if callID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		callID = "random:" + hex.EncodeToString(b[:])
	}
	args, err := HashArgs(req.Call.Args)
	if err != nil {
		args = "raw:" + string(req.Call.Args)
	}
	// The principal (its roles too) and the agent are part of the
	// question, as the person was shown them: call ids come from models
	// and clients, and one call id reused by someone else, or by the same
	// principal acting with other roles, must not find a decision made for
	// another.
	var roles strings.Builder
	for _, r := range req.Principal.Roles {
		roles.WriteString(strconv.Itoa(len(r)) + ":" + r)
	}
	for _, part := range []string{callID, req.Call.Name, req.Call.Session, req.Principal.Tenant, req.Principal.ID, roles.String(), req.Call.Agent, args} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
	}
	return "apr-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// DefaultDecisionRetention is how many decided approvals a MemoryStore
// keeps for calls that are run again.
const DefaultDecisionRetention = 10_000

// MemoryStore is a Store in this process's memory. It keeps every pending
// approval, and the decisions (without their requests) of the last
// DefaultDecisionRetention decided ones not yet delivered, and denials.
type MemoryStore struct {
	mu      sync.Mutex
	items   map[string]*memApproval
	decided []*memApproval // decided approvals, oldest first
}

type memApproval struct {
	p     Pending
	state approvalState
	d     Decision
	done  chan struct{} // closed when the state leaves pending
}

type approvalState uint8

const (
	statePending approvalState = iota
	stateDecided
	stateWithdrawn
	stateDelivered // an approval Await returned: spent
)

// standing reports whether d is found again after it is delivered: only a
// denial is. Anything else lets a call run, once.
func standing(d Decision) bool { return d.Kind == Deny }

var _ RequestDecider = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{items: map[string]*memApproval{}} }

// Put implements Store.
func (s *MemoryStore) Put(_ context.Context, p Pending) error {
	if p.ID == "" {
		return errors.New("approval: Put: the pending request has no id: use RequestID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if it := s.items[p.ID]; it != nil && it.state != stateWithdrawn {
		if it.state != statePending || !it.expired(time.Now()) {
			return nil
		}
		// An expired request nobody withdrew: its waiters (if any are
		// left) see it end; the new one waits on a fresh request.
		it.state = stateWithdrawn
		close(it.done)
	}
	s.items[p.ID] = &memApproval{p: p, done: make(chan struct{})}
	return nil
}

// Await implements Store.
func (s *MemoryStore) Await(ctx context.Context, id string) (Decision, error) {
	s.mu.Lock()
	it := s.items[id]
	s.mu.Unlock()
	if it == nil {
		return Decision{}, fmt.Errorf("approval %s: %w", id, ErrNotPending)
	}
	select {
	case <-it.done: // decided or withdrawn already: a decision stands past the request's expiry
	default:
		var expired <-chan time.Time
		if !it.p.Expires.IsZero() {
			t := time.NewTimer(time.Until(it.p.Expires))
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-it.done:
		case <-ctx.Done():
			return Decision{}, fmt.Errorf("approval %s: %w", id, ctx.Err())
		case <-expired:
			return Decision{}, fmt.Errorf("approval %s waited until %s: %w", id, it.p.Expires.Format(time.RFC3339), ErrTimeout)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch it.state {
	case stateDecided:
		if !standing(it.d) {
			// Spent: the id put again is a new request.
			it.state = stateDelivered
			if s.items[id] == it {
				delete(s.items, id)
			}
		}
		return it.d, nil
	case stateDelivered:
		return Decision{}, fmt.Errorf("approval %s was already delivered to a waiter, and an approval approves one run: put the request again to ask again: %w", id, ErrNotPending)
	}
	return Decision{}, fmt.Errorf("approval %s was withdrawn: %w", id, ErrNotPending)
}

// Decide implements Store.
func (s *MemoryStore) Decide(_ context.Context, id string, d Decision) error {
	return s.decide(id, nil, d)
}

// DecideRequest implements RequestDecider.
func (s *MemoryStore) DecideRequest(_ context.Context, id string, since time.Time, d Decision) error {
	return s.decide(id, &since, d)
}

func (s *MemoryStore) decide(id string, since *time.Time, d Decision) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[id]
	if it == nil || it.state != statePending || it.expired(time.Now()) {
		return fmt.Errorf("approval %s: %w", id, ErrNotPending)
	}
	if since != nil && !it.p.Since.Equal(*since) {
		return fmt.Errorf("approval %s waiting now arrived at %s, not at %s: it is the call asked again after the request that arrived then was decided: %w",
			id, it.p.Since.Format(time.RFC3339Nano), since.Format(time.RFC3339Nano), ErrNotPending)
	}
	// The request (the call's arguments, up to a megabyte) is no longer
	// needed: what a call run again finds is the decision.
	it.state, it.d, it.p.Request = stateDecided, d, Request{}
	close(it.done)
	s.decided = append(s.decided, it)
	if len(s.decided) > DefaultDecisionRetention {
		old := s.decided[0]
		s.decided[0] = nil
		s.decided = s.decided[1:]
		// Only this decision: its id may have been put and decided again.
		if s.items[old.p.ID] == old && old.state == stateDecided {
			delete(s.items, old.p.ID)
		}
	}
	return nil
}

// Withdraw implements Store.
func (s *MemoryStore) Withdraw(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[id]
	switch {
	case it == nil:
	case it.state == statePending:
		it.state = stateWithdrawn
		close(it.done)
		delete(s.items, id)
	case it.state == stateDecided && !standing(it.d):
		// Decided as its waiter gave up: nothing ran on the approval,
		// and nothing may later.
		it.state = stateWithdrawn
		delete(s.items, id)
	}
	return nil
}

// List implements Store.
func (s *MemoryStore) List(context.Context) ([]Pending, error) {
	now := time.Now()
	s.mu.Lock()
	out := make([]Pending, 0, len(s.items))
	for _, it := range s.items {
		if it.state == statePending && !it.expired(now) {
			out = append(out, it.p)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, comparePending)
	return out, nil
}

func (it *memApproval) expired(now time.Time) bool {
	return !it.p.Expires.IsZero() && !now.Before(it.p.Expires)
}
