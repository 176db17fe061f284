// Package keylock is a table of reader/writer locks named by string keys,
// granted in strict first-come order per key.
//
// A caller takes a Ticket for all the keys it needs at once (Enqueue); the
// ticket's place in each key's queue is fixed then, so the order in which
// tickets were taken is the order in which they are served, whatever order
// their owners later wait in. Readers at the head of a queue share the key;
// a writer holds it alone.
//
// Because a ticket is placed in every one of its queues in one step under
// the table's lock, two tickets that share keys are ordered the same way on
// each of them, and a ticket only ever waits for tickets taken before it: a
// holder of several keys cannot deadlock with another.
package keylock

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// ErrReleased is returned by Wait on a ticket that was released while its
// owner waited.
var ErrReleased = errors.New("keylock: ticket released")

// Request names a key and how it is held.
type Request struct {
	Key string
	// Exclusive asks for the key alone (a writer); otherwise it is shared
	// with other readers.
	Exclusive bool
}

// Table holds the queues of every key in use. Its zero value is ready to
// use. A key with no ticket takes memory only while few such keys are
// kept for reuse (see idle).
type Table struct {
	mu   sync.Mutex
	keys map[string]*queue
	busy int // keys whose queue holds an entry
	// idle counts the emptied queues left in keys, so that a key taken and
	// released over and over (the uncontended case) costs no map insertion
	// and deletion. They are swept out once there are more of them than
	// busy keys (and than minIdle): memory stays in proportion to the keys
	// in use, at a constant amortised cost.
	idle int
	// spare holds swept queues for reuse by new keys. A queue is swept only
	// once no entry, hence no ticket, refers to it.
	spare []*queue
}

const (
	minIdle  = 16 // emptied queues kept whatever the number of busy keys
	maxSpare = 16 // swept queues kept for reuse
)

type queue struct {
	head, tail *entry
	writers    int // exclusive entries in the queue, granted or not
}

type entry struct {
	key        string
	excl       bool
	granted    bool
	t          *Ticket
	q          *queue
	prev, next *entry
}

// Ticket is one owner's place in the queues of its keys. Release it exactly
// when the owner is done, whether or not it was granted.
type Ticket struct {
	tab     *Table
	owner   string
	one     [1]entry
	entries []entry
	ready   chan struct{} // closed when pending reaches 0 or on release; nil when granted at once
	pending int32         // entries not yet granted; guarded by tab.mu
	// released is written under tab.mu; it is atomic so that Ready can
	// answer a ticket granted at once without taking the lock.
	released atomic.Bool
}

// Enqueue takes a ticket for reqs, in one step. Empty keys are ignored; a
// key named twice is held exclusively if either request is exclusive.
// owner is reported by Waiting to others queued behind this ticket.
// Enqueue never blocks for long; use Ready or Wait to learn when every key
// is granted. It returns nil when reqs name no key.
func (tab *Table) Enqueue(owner string, reqs []Request) *Ticket {
	tk := new(Ticket)
	if !tab.EnqueueInto(tk, owner, reqs) {
		return nil
	}
	return tk
}

// EnqueueInto is Enqueue with the ticket's storage supplied by the caller
// (embedded in a larger per-call struct, to save an allocation). tk must be
// a zero Ticket: a fresh one, or one released and then zeroed by the only
// owner of its storage. It reports false, leaving tk unused, when reqs name
// no key.
func (tab *Table) EnqueueInto(tk *Ticket, owner string, reqs []Request) bool {
	tk.tab, tk.owner = tab, owner
	switch {
	case len(reqs) == 1:
		if reqs[0].Key == "" {
			return false
		}
		tk.one[0] = entry{key: reqs[0].Key, excl: reqs[0].Exclusive}
		tk.entries = tk.one[:]
	default:
		tk.entries = make([]entry, 0, len(reqs))
		for _, r := range reqs {
			if r.Key != "" {
				tk.entries = append(tk.entries, entry{key: r.Key, excl: r.Exclusive})
			}
		}
		// A global key order makes the table's behaviour independent of the
		// order a caller lists its keys in, and lets duplicates be merged.
		slices.SortFunc(tk.entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
		out := tk.entries[:0]
		for _, e := range tk.entries {
			if n := len(out); n > 0 && out[n-1].key == e.key {
				out[n-1].excl = out[n-1].excl || e.excl
				continue
			}
			out = append(out, e)
		}
		tk.entries = out
		if len(tk.entries) == 0 {
			return false
		}
	}

	tab.mu.Lock()
	if tab.keys == nil {
		tab.keys = make(map[string]*queue)
	}
	for i := range tk.entries {
		e := &tk.entries[i]
		e.t = tk
		q := tab.keys[e.key]
		switch {
		case q == nil:
			q = tab.newQueue()
			tab.keys[e.key] = q
			tab.busy++
		case q.head == nil:
			tab.idle--
			tab.busy++
		}
		e.q = q
		// Appended at the tail: a writer is granted only on an empty queue,
		// a reader only when no writer is queued ahead of it.
		e.granted = q.head == nil || (!e.excl && q.writers == 0)
		if !e.granted {
			tk.pending++
		}
		if e.excl {
			q.writers++
		}
		e.prev = q.tail
		if q.tail != nil {
			q.tail.next = e
		} else {
			q.head = e
		}
		q.tail = e
	}
	if tk.pending > 0 {
		tk.ready = make(chan struct{})
	}
	tab.mu.Unlock()
	return true
}

// newQueue returns an empty queue, a spare one if there is. tab.mu is held.
func (tab *Table) newQueue() *queue {
	if n := len(tab.spare); n > 0 {
		q := tab.spare[n-1]
		tab.spare[n-1] = nil
		tab.spare = tab.spare[:n-1]
		return q
	}
	return &queue{}
}

// sweep drops the emptied queues from keys. No entry is left in them, so
// no ticket refers to them: a few are kept to serve new keys. tab.mu is
// held.
func (tab *Table) sweep() {
	for k, q := range tab.keys {
		if q.head != nil {
			continue
		}
		delete(tab.keys, k)
		if len(tab.spare) < maxSpare {
			*q = queue{}
			tab.spare = append(tab.spare, q)
		}
	}
	tab.idle = 0
}

// Ready reports whether every key of the ticket is granted.
func (tk *Ticket) Ready() bool {
	if tk.ready == nil {
		// Granted at Enqueue (ready is set only there), and a grant is
		// never taken back: only a release ends it.
		return !tk.released.Load()
	}
	tk.tab.mu.Lock()
	ok := tk.pending == 0 && !tk.released.Load()
	tk.tab.mu.Unlock()
	return ok
}

// Wait blocks until every key of the ticket is granted (nil), ctx is done
// (ctx.Err()), or the ticket is released (ErrReleased). A ticket granted at
// the moment ctx ends counts as granted. The ticket keeps its place after
// a failed Wait: Release it.
func (tk *Ticket) Wait(ctx context.Context) error {
	tk.tab.mu.Lock()
	pending, released, ready := tk.pending, tk.released.Load(), tk.ready
	tk.tab.mu.Unlock()
	switch {
	case released:
		return ErrReleased
	case pending == 0:
		return nil
	}
	select {
	case <-ready:
	case <-ctx.Done():
	}
	tk.tab.mu.Lock()
	pending, released = tk.pending, tk.released.Load()
	tk.tab.mu.Unlock()
	switch {
	case released:
		return ErrReleased
	case pending == 0:
		return nil
	}
	return ctx.Err()
}

// Waiting describes the first key the ticket still waits for: the key,
// whether this ticket wants it exclusively, and the owner of the ticket at
// the head of that key's queue. ok is false when nothing is awaited.
func (tk *Ticket) Waiting() (key string, exclusive bool, holder string, ok bool) {
	tk.tab.mu.Lock()
	defer tk.tab.mu.Unlock()
	if tk.released.Load() {
		return "", false, "", false
	}
	for i := range tk.entries {
		e := &tk.entries[i]
		if !e.granted {
			return e.key, e.excl, e.q.head.t.owner, true
		}
	}
	return "", false, "", false
}

// Release gives up every key of the ticket, granted or still queued, and
// lets the tickets behind it in. It is safe to call more than once and on a
// nil ticket.
func (tk *Ticket) Release() {
	if tk == nil {
		return
	}
	tab := tk.tab
	tab.mu.Lock()
	defer tab.mu.Unlock()
	if tk.released.Load() {
		return
	}
	tk.released.Store(true)
	for i := range tk.entries {
		e := &tk.entries[i]
		q := e.q
		if e.prev != nil {
			e.prev.next = e.next
		} else {
			q.head = e.next
		}
		if e.next != nil {
			e.next.prev = e.prev
		} else {
			q.tail = e.prev
		}
		if e.excl {
			q.writers--
		}
		e.prev, e.next, e.q = nil, nil, nil
		if q.head == nil {
			tab.busy--
			tab.idle++
			continue
		}
		grant(q)
	}
	if tab.idle > max(minIdle, tab.busy) {
		tab.sweep()
	}
	if tk.ready != nil && tk.pending > 0 {
		close(tk.ready)
	}
}

// grant lets in whoever may now hold q: the writer at the head alone, or
// the run of readers at the head.
func grant(q *queue) {
	for e := q.head; e != nil; e = e.next {
		if e.excl {
			if e == q.head && !e.granted {
				e.granted = true
				e.t.granted()
			}
			return
		}
		if !e.granted {
			e.granted = true
			e.t.granted()
		}
	}
}

func (tk *Ticket) granted() {
	tk.pending--
	if tk.pending == 0 && tk.ready != nil && !tk.released.Load() {
		close(tk.ready)
	}
}

// Len returns how many keys have at least one ticket queued or granted.
func (tab *Table) Len() int {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return tab.busy
}

// Matches reports whether reqs, merged the way Enqueue merges them, name
// exactly the keys and modes of the ticket.
func (tk *Ticket) Matches(reqs []Request) bool {
	if tk == nil {
		for _, r := range reqs {
			if r.Key != "" {
				return false
			}
		}
		return true
	}
	m := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if r.Key != "" {
			m[r.Key] = m[r.Key] || r.Exclusive
		}
	}
	if len(m) != len(tk.entries) {
		return false
	}
	for i := range tk.entries {
		excl, ok := m[tk.entries[i].key]
		if !ok || excl != tk.entries[i].excl {
			return false
		}
	}
	return true
}
