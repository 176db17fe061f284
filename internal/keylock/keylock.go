// Package keylock is a table of reader/writer locks named by string keys,
// granted in strict first-come order per key.
//
// A caller takes a Ticket for all the keys it needs at once (Enqueue),
// which fixes its place in each key's queue: tickets are served in the
// order they were taken, whatever order their owners wait in. Readers at
// the head of a queue share the key; a writer holds it alone; nobody
// overtakes. A ticket joins all its queues in one step under the table's
// lock, so it only ever waits for tickets taken before it: no deadlock.
//
// The table is one mutex over a map of FIFO queues: locks are taken around
// tool calls that last milliseconds; the mutex costs nanoseconds.
package keylock

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
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

// Table holds the queues of the keys in use (a queue goes with its last
// ticket). Its zero value is ready to use; do not copy it after first use.
type Table struct {
	mu     sync.Mutex
	queues map[string]*queue
}

// queue is a key's FIFO queue, a doubly linked list, so that leaving it
// costs the same however many tickets share the key (10,000 reads of a file).
type queue struct{ head, tail *entry }

// entry is one ticket's place in one key's queue.
type entry struct {
	key        string
	excl       bool
	granted    bool
	t          *Ticket
	prev, next *entry
}

// Ticket is one owner's place in the queues of its keys. Release it exactly
// when the owner is done, whether or not it was granted.
type Ticket struct {
	tab      *Table
	owner    any
	entries  []*entry      // sorted by key, one per key
	pending  int           // entries not yet granted; tab.mu
	ready    chan struct{} // closed when pending reaches 0
	released chan struct{} // closed by Release
	done     bool          // released; tab.mu
}

// Enqueue takes a ticket for reqs, in one step. Empty keys are ignored; a
// key named twice is held exclusively if either request is. owner is what
// Waiting and Ahead report to tickets behind this one. Enqueue never blocks
// for long; Ready and Wait tell when every key is granted. It returns nil
// when reqs name no key.
func (tab *Table) Enqueue(owner any, reqs []Request) *Ticket {
	merged := merge(reqs)
	if len(merged) == 0 {
		return nil
	}
	tk := &Ticket{tab: tab, owner: owner, pending: len(merged), ready: make(chan struct{}), released: make(chan struct{})}
	tab.mu.Lock()
	defer tab.mu.Unlock()
	if tab.queues == nil {
		tab.queues = map[string]*queue{}
	}
	for _, r := range merged {
		e := &entry{key: r.Key, excl: r.Exclusive, t: tk}
		tk.entries = append(tk.entries, e)
		q := tab.queues[r.Key]
		if q == nil {
			q = &queue{}
			tab.queues[r.Key] = q
		}
		if e.prev = q.tail; e.prev != nil {
			e.prev.next = e
		} else {
			q.head = e
		}
		q.tail = e
		grant(e) // ready closes only once every key is granted
	}
	return tk
}

// merge sorts requests by key, drops empty keys and merges duplicates (a
// writer wins).
func merge(reqs []Request) []Request {
	out := slices.DeleteFunc(slices.Clone(reqs), func(r Request) bool { return r.Key == "" })
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(a.Key, b.Key) })
	j := 0
	for _, r := range out {
		if j > 0 && out[j-1].Key == r.Key {
			out[j-1].Exclusive = out[j-1].Exclusive || r.Exclusive
		} else {
			out[j], j = r, j+1
		}
	}
	return out[:j]
}

// grant lets in e, which has just joined the queue or come next, and the
// entries behind it that may now hold the key: a key's holders are the
// writer at the head alone or the readers at the head. tab.mu is held.
func grant(e *entry) {
	if p := e.prev; p != nil && (!p.granted || p.excl) {
		return
	}
	for ; e != nil && !e.granted; e = e.next {
		if e.excl && e.prev != nil {
			return // a writer waits for everyone ahead of it
		}
		e.granted = true
		if e.t.pending--; e.t.pending == 0 {
			close(e.t.ready)
		}
		if e.excl {
			return // the writer at the head holds the key alone
		}
	}
}

// Ready reports whether every key of the ticket is granted.
func (tk *Ticket) Ready() bool {
	select {
	case <-tk.ready:
		return true
	default:
		return false
	}
}

// Wait blocks until every key of the ticket is granted (nil, also when
// granted as ctx ends), ctx is done (ctx.Err()), or the ticket is released
// (ErrReleased). After a failed Wait the ticket keeps its place: Release it.
func (tk *Ticket) Wait(ctx context.Context) error {
	select {
	case <-tk.ready:
	case <-tk.released:
	case <-ctx.Done():
		if !tk.Ready() {
			return ctx.Err()
		}
	}
	select {
	case <-tk.released:
		return ErrReleased
	default:
		return nil
	}
}

// Waiting describes the first key the ticket still waits for: the key,
// whether this ticket wants it exclusively, and the owner of the ticket at
// the head of that key's queue. ok is false when nothing is awaited.
func (tk *Ticket) Waiting() (key string, exclusive bool, holder any, ok bool) {
	tk.tab.mu.Lock()
	defer tk.tab.mu.Unlock()
	for _, e := range tk.entries {
		if !e.granted {
			if q := tk.tab.queues[e.key]; q != nil { // none once released
				holder = q.head.t.owner
			}
			return e.key, e.excl, holder, true
		}
	}
	return "", false, nil, false
}

// Ahead finds a ticket whose owner match accepts and that tk waits for,
// directly or through waiting tickets ahead of it, and returns the owner
// and tk's key the wait goes through. match runs with the table locked.
func (tk *Ticket) Ahead(match func(owner any) bool) (key string, owner any, ok bool) {
	tk.tab.mu.Lock()
	defer tk.tab.mu.Unlock()
	type waiter struct {
		t   *Ticket
		key string // tk's key that the wait goes through
	}
	seen := map[*Ticket]bool{tk: true}
	todo := []waiter{{t: tk}}
	for len(todo) > 0 {
		w := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, e := range w.t.entries {
			if e.granted {
				continue
			}
			via := cmp.Or(w.key, e.key)
			for p := e.prev; p != nil; p = p.prev {
				if match(p.t.owner) {
					return via, p.t.owner, true
				}
				if p.t.pending > 0 && !seen[p.t] {
					seen[p.t] = true
					todo = append(todo, waiter{p.t, via})
				}
			}
		}
	}
	return "", nil, false
}

// Release gives up every key of the ticket, granted or queued, and lets the
// tickets behind it in. It is safe more than once and on a nil ticket.
func (tk *Ticket) Release() {
	if tk == nil {
		return
	}
	tab := tk.tab
	tab.mu.Lock()
	defer tab.mu.Unlock()
	if tk.done {
		return
	}
	tk.done = true
	close(tk.released)
	for _, e := range tk.entries {
		q, next := tab.queues[e.key], e.next
		if e.prev != nil {
			e.prev.next = next
		} else {
			q.head = next
		}
		if next != nil {
			next.prev = e.prev
			grant(next)
		} else {
			q.tail = e.prev
		}
		if q.head == nil {
			delete(tab.queues, e.key)
		}
		e.prev, e.next = nil, nil
	}
}

// Len returns how many keys have at least one ticket, queued or granted.
func (tab *Table) Len() int {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	return len(tab.queues)
}

// Matches reports whether reqs, merged the way Enqueue merges them, name
// exactly the keys and modes of the ticket.
func (tk *Ticket) Matches(reqs []Request) bool {
	m := merge(reqs)
	if tk == nil {
		return len(m) == 0
	}
	return slices.EqualFunc(m, tk.entries, func(r Request, e *entry) bool { return r.Key == e.key && r.Exclusive == e.excl })
}
