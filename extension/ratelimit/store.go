package ratelimit

import (
	"container/list"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Bucket names one token bucket a call takes from, and its rate.
type Bucket struct {
	// Key identifies the bucket in its store. The limiter builds keys that
	// cannot collide between scopes, tools and principals (each part is
	// length-prefixed), whatever bytes a principal's id holds.
	Key  string
	Rate Rate
	// Shared marks a bucket every caller takes from: a tool's (PerTool,
	// EachTool, Spec.RateLimitPerHour), one per limited tool. A bounded
	// store keeps it when it must forget buckets to make room, and drops
	// it only once it is full again: forgetting it mid-period would reset
	// a limit all callers share, and a caller who can name fresh
	// principals could make the store forget it at will.
	Shared bool
}

// Grant is a store's answer to Take.
type Grant struct {
	// OK: one token was taken from every bucket. Otherwise none was.
	OK bool
	// RetryAfter, when not OK, is how long until every bucket holds a
	// token (on the store's clock).
	RetryAfter time.Duration
	// Limiting, when not OK, is the index of the bucket that waits longest.
	Limiting int
	// Remaining holds, for each bucket in the order given, the whole
	// tokens left after the take (or now, when refused).
	Remaining []int
}

// Store keeps token buckets. The in-memory MemoryStore is the default; a
// shared store (backend/postgres) makes limits exact across instances.
//
// Take must be atomic: one token from every bucket, or none, in one step,
// on the store's own clock (so instances with drifting clocks agree). Give
// puts back one token in each bucket (capped at its burst): the limiter
// calls it when a call it admitted must not count.
type Store interface {
	Take(ctx context.Context, buckets []Bucket) (Grant, error)
	Give(ctx context.Context, buckets []Bucket) error
}

// State is what a store keeps for one bucket: its tokens when it was last
// touched.
type State struct {
	Tokens  float64
	Updated time.Time
}

// Fresh returns a new (full) bucket's state at now.
func (r Rate) Fresh(now time.Time) State { return State{Tokens: float64(r.burst()), Updated: now} }

// At returns s refilled up to now (never above the burst; a clock that went
// back refills nothing).
func (r Rate) At(s State, now time.Time) State {
	if elapsed := now.Sub(s.Updated); elapsed > 0 {
		s.Tokens = math.Min(float64(r.burst()), s.Tokens+elapsed.Seconds()*float64(r.Limit()))
		s.Updated = now
	}
	return s
}

// Refill is how long s takes to be full again, after which the bucket is
// the same as a new one and a store may forget it.
func (r Rate) Refill(s State) time.Duration {
	missing := float64(r.burst()) - s.Tokens
	if missing <= 0 {
		return 0
	}
	return tokensTime(missing, r)
}

// wait is how long s (at its Updated time) needs to hold one token.
func (r Rate) wait(s State) time.Duration {
	if s.Tokens >= 1 {
		return 0
	}
	return tokensTime(1-s.Tokens, r)
}

// TakeAll is the one rule every Store applies: given each bucket's state
// (already refilled to now, or Fresh), it takes one token from every bucket
// when each holds one, and returns the grant and the new states. A refused
// take leaves the states as they were.
func TakeAll(buckets []Bucket, states []State) (Grant, []State) {
	g := Grant{OK: true, Remaining: make([]int, len(buckets))}
	for i, b := range buckets {
		if w := b.Rate.wait(states[i]); w > 0 {
			if g.OK || w > g.RetryAfter {
				g.RetryAfter, g.Limiting = w, i
			}
			g.OK = false
		}
	}
	out := states
	if g.OK {
		out = make([]State, len(states))
		for i, s := range states {
			s.Tokens--
			out[i] = s
		}
	}
	for i, s := range out {
		g.Remaining[i] = int(math.Floor(s.Tokens + 1e-9))
	}
	return g, out
}

// GiveBack returns s with one token put back (capped at the burst).
func (r Rate) GiveBack(s State) State {
	s.Tokens = math.Min(float64(r.burst()), s.Tokens+1)
	return s
}

// MemoryStore is a Store in this process's memory, on its wall clock. It
// stays bounded however many principals call: a bucket idle for its whole
// refill time is full, the same as a new one, so inserts drop such buckets,
// and a store at its bound drops its least recently used bucket that is not
// Shared. Shared buckets (one per limited tool) are not counted in the
// bound and are dropped only when full. It starts no goroutine.
type MemoryStore struct {
	mu     sync.Mutex
	m      map[string]*memBucket
	lru    list.List // callers' buckets; front: most recently used
	shared list.List // Shared buckets, the same way
	max    int
}

type memBucket struct {
	key   string
	rate  Rate
	state State
	elem  *list.Element
	list  *list.List // lru or shared
}

// NewMemoryStore returns an empty store holding at most maxBuckets buckets
// of callers (DefaultMaxBuckets when maxBuckets is 0 or less), besides the
// Shared ones and, under a bound smaller than the buckets one call takes
// from, those of the last call. Evicting a bucket that is not full forgets what it had used:
// set the bound above the number of callers active within one refill
// period.
func NewMemoryStore(maxBuckets int) *MemoryStore {
	if maxBuckets <= 0 {
		maxBuckets = DefaultMaxBuckets
	}
	return &MemoryStore{m: map[string]*memBucket{}, max: maxBuckets}
}

// Take implements Store.
func (s *MemoryStore) Take(_ context.Context, buckets []Bucket) (Grant, error) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	mbs := make([]*memBucket, len(buckets))
	states := make([]State, len(buckets))
	for i, b := range buckets {
		mb, err := s.bucket(b, now, mbs[:i])
		if err != nil {
			return Grant{}, err
		}
		mbs[i] = mb
		states[i] = b.Rate.At(mb.state, now)
	}
	g, states := TakeAll(buckets, states)
	if g.OK {
		for i, mb := range mbs {
			mb.state = states[i]
		}
	}
	return g, nil
}

// Give implements Store.
func (s *MemoryStore) Give(_ context.Context, buckets []Bucket) error {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range buckets {
		if mb := s.m[b.Key]; mb != nil {
			mb.state = b.Rate.GiveBack(b.Rate.At(mb.state, now))
		}
	}
	return nil
}

// bucket returns b's bucket, created full when missing, marked used.
// inUse are the buckets the same Take holds already: a store at its bound
// forgets other buckets, never one of these (the token would be taken from
// a bucket it no longer holds), and holds a few more until a later insert
// instead.
func (s *MemoryStore) bucket(b Bucket, now time.Time, inUse []*memBucket) (*memBucket, error) {
	if mb := s.m[b.Key]; mb != nil {
		if mb.rate != b.Rate {
			// The configuration changed: keep what was used, at the new rate.
			mb.rate = b.Rate
		}
		mb.list.MoveToFront(mb.elem)
		return mb, nil
	}
	if err := b.Rate.check(); err != nil {
		return nil, fmt.Errorf("bucket %q: %w", b.Key, err)
	}
	s.sweep(now, sweepPerInsert)
	mb := &memBucket{key: b.Key, rate: b.Rate, state: b.Rate.Fresh(now), list: &s.lru}
	if b.Shared {
		mb.list = &s.shared
	} else {
		for s.lru.Len() >= s.max {
			// The buckets in use were moved to the front: when the least
			// recently used is one, every other is too.
			back := s.lru.Back().Value.(*memBucket)
			if slices.Contains(inUse, back) {
				break
			}
			s.evict(back)
		}
	}
	mb.elem = mb.list.PushFront(mb)
	s.m[b.Key] = mb
	return mb, nil
}

// sweepPerInsert is how many least recently used buckets an insert looks
// at for idleness: eviction is spread over inserts, with no goroutine.
const sweepPerInsert = 4

func (s *MemoryStore) evict(mb *memBucket) {
	mb.list.Remove(mb.elem)
	delete(s.m, mb.key)
}

// sweep drops up to n (all, when n < 0) full buckets from the least
// recently used end of each list.
func (s *MemoryStore) sweep(now time.Time, n int) int {
	return sweepList(s, &s.lru, now, n) + sweepList(s, &s.shared, now, n)
}

func sweepList(s *MemoryStore, l *list.List, now time.Time, n int) int {
	dropped := 0
	for e := l.Back(); e != nil && (n < 0 || dropped < n); {
		mb := e.Value.(*memBucket)
		if now.Sub(mb.state.Updated) < mb.rate.refill() {
			break
		}
		prev := e.Prev()
		s.evict(mb)
		dropped++
		e = prev
	}
	return dropped
}

// Len returns how many buckets the store holds.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Sweep drops every idle (full) bucket now and returns how many it
// dropped. Inserts already sweep a few, so calling it is optional.
func (s *MemoryStore) Sweep() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sweep(time.Now(), -1)
}
