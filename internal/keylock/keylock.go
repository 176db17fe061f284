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
//
// The common case takes no lock at all: a single key that nobody holds or
// awaits in a conflicting way is taken through a fast path (TryHold, and
// Enqueue of one key). A writer takes it with one compare-and-swap of the
// key's writer slot and gives it back with another; a reader with one
// compare-and-swap of the key's reader count and one atomic add. Such fast
// holders are ahead of every ticket queued after them; once a ticket is
// queued on a key, the fast path stays out of it until the queue is empty
// again, so that nobody overtakes a waiter. A fast holder holds one key and
// waits for nothing, so it cannot take part in a deadlock either.
package keylock

import (
	"cmp"
	"context"
	"errors"
	"hash/maphash"
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
// use; it must not be copied after first use. Emptied queues are kept for
// reuse and swept out when the table grows past twice the keys it kept at
// its last sweep: memory stays in proportion to the keys in use.
type Table struct {
	mu sync.Mutex
	// idx maps a key to its queue. It is written under mu and read
	// without it by the fast path; nil until the first key.
	idx atomic.Pointer[index]
	// seed hashes the keys of every index of the table; set with the
	// first. Guarded by mu.
	seed maphash.Seed
	// n counts the queues in idx; the next new key sweeps when n reaches
	// sweepAt. Both are guarded by mu.
	n, sweepAt int
}

// minKeys is the number of queues kept whatever the number of keys in use.
const minKeys = 64

// queue is one key's line of tickets. Tickets queued by the slow path are
// entries in a list under the table's lock. Holders that took the key by
// the fast path (a single key, nobody queued) are only recorded in writer
// and state, without the lock: they are the holders ahead of every entry.
//
// A fast writer and a fast reader (or a queued entry, or a sweep) each
// write their own word first and read the other's second; with Go's
// sequentially consistent atomics at least one of the two sees the other
// and backs out, so they never both hold. Whoever backs out or leaves
// while an entry is queued grants the entries, under the table's lock
// (granting twice is harmless; grant checks again).
type queue struct {
	tab *Table
	key string
	// writer points at the owner name of the fast writer; nil when none.
	writer atomic.Pointer[string]
	// state counts the fast readers (low 32 bits) and holds the flags
	// below. Once queuedBit is set, the fast path stays out: fast holders
	// can only leave, and the last one to leave grants the entries.
	state atomic.Uint64
	// holder points at the owner name of a fast reader, for Waiting's
	// report.
	holder atomic.Pointer[string]

	head, tail *entry // guarded by tab.mu
	writers    int    // exclusive entries in the list, granted or not; tab.mu
}

// The parts of queue.state.
const (
	fastReader  uint64 = 1         // one fast reader
	fastReaders uint64 = 1<<32 - 1 // mask of the fast readers' count
	queuedBit   uint64 = 1 << 33   // the list holds entries
	deadBit     uint64 = 1 << 34   // swept out of the table: look the key up again
)

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
	tab   *Table
	owner string
	// fast is the key's queue when the ticket holds its single key through
	// the fast path (it has no entries then); fastExcl is its mode.
	fast     *queue
	fastExcl bool
	one      [1]entry
	entries  []entry
	ready    chan struct{} // closed when pending reaches 0 or on release; nil when granted at once
	pending  int32         // entries not yet granted; guarded by tab.mu
	// released is written under tab.mu (by CAS for a fast ticket); it is
	// atomic so that Ready can answer a ticket granted at once without
	// taking the lock.
	released atomic.Bool
}

// Hold is one key held through the fast path (Table.TryHold): the lightest
// way to hold a key nobody else is queued for. Its zero value holds
// nothing. A Hold must not be copied or reused once taken.
type Hold struct {
	q     *queue
	owner string
	excl  bool
	// done marks a released reader (a writer's release empties the
	// queue's writer slot, which says as much).
	done atomic.Bool
}

// TryHold takes key for owner at once, if nobody holds or awaits it in a
// conflicting way (readers share; a writer needs the key free), and
// reports whether it did. It never waits and takes no lock in the common
// case. On false, queue with Enqueue instead (whose ticket goes behind
// the holders). h must be a zero Hold; release it with Release. An empty
// key is never held.
func (tab *Table) TryHold(h *Hold, owner, key string, exclusive bool) bool {
	if key == "" {
		return false
	}
	h.owner, h.excl = owner, exclusive
	h.q = tab.fastAcquire(&h.owner, key, exclusive)
	return h.q != nil
}

// Key returns the key held, empty for a Hold that holds nothing (never
// taken, or released).
func (h *Hold) Key() string {
	switch {
	case h == nil || h.q == nil:
		return ""
	case h.excl && h.q.writer.Load() != &h.owner, !h.excl && h.done.Load():
		return "" // released
	}
	return h.q.key
}

// Exclusive reports whether the key is held as a writer.
func (h *Hold) Exclusive() bool { return h != nil && h.excl }

// Matches reports whether reqs, merged the way Enqueue merges them, name
// exactly the held key in its mode. A released Hold matches nothing.
func (h *Hold) Matches(reqs []Request) bool {
	key := h.Key()
	return key != "" && matchesOne(key, h.excl, reqs)
}

// Release gives the key up. It is safe to call more than once, at once,
// and on a Hold that holds nothing.
func (h *Hold) Release() {
	switch {
	case h == nil || h.q == nil:
	case h.excl:
		h.q.leaveWrite(&h.owner) // only the first empties the slot
	case h.done.CompareAndSwap(false, true):
		h.q.leaveRead(&h.owner)
	}
}

// fastAcquire takes key through the fast path and returns its queue, or
// nil when the key is held or awaited in a conflicting way.
func (tab *Table) fastAcquire(owner *string, key string, excl bool) *queue {
	if q := tab.idx.Load().lookup(key); q != nil {
		ok, dead := q.tryFast(owner, excl)
		switch {
		case ok:
			return q
		case !dead:
			return nil
		}
		// Swept meanwhile: the key's next queue is another one, which
		// the sweep (holding the lock) is about to publish.
	}
	// A key not in use (or just swept): find or make its queue under the
	// lock, then take it as any other (someone may have queued
	// meanwhile). Under the lock no queue of the index is dead.
	tab.mu.Lock()
	q := tab.queueFor(key)
	ok, _ := q.tryFast(owner, excl)
	tab.mu.Unlock()
	if !ok {
		return nil
	}
	return q
}

// tryFast takes q through the fast path. dead reports a queue swept out of
// the table.
func (q *queue) tryFast(owner *string, excl bool) (ok, dead bool) {
	if excl {
		return q.tryWrite(owner)
	}
	return q.tryRead(owner)
}

// tryWrite takes q as its fast writer: the writer slot first, then a look
// at the state, which must show no reader, entry or sweep.
func (q *queue) tryWrite(owner *string) (ok, dead bool) {
	if s := q.state.Load(); s != 0 {
		return false, s&deadBit != 0
	}
	if !q.writer.CompareAndSwap(nil, owner) {
		return false, false
	}
	return q.confirmWrite(owner)
}

// confirmWrite is the second half of tryWrite, once owner is in the
// writer slot: the state must still show no reader, entry or sweep, or
// the writer backs out.
func (q *queue) confirmWrite(owner *string) (ok, dead bool) {
	s := q.state.Load()
	if s == 0 {
		return true, false
	}
	q.leaveWrite(owner)
	return false, s&deadBit != 0
}

// tryRead takes q as one more fast reader: the reader count first, then a
// look at the writer slot, which must be empty.
func (q *queue) tryRead(owner *string) (ok, dead bool) {
	for {
		s := q.state.Load()
		switch {
		case s&deadBit != 0:
			return false, true
		case s&queuedBit != 0 || q.writer.Load() != nil:
			return false, false
		}
		if q.state.CompareAndSwap(s, s+fastReader) {
			return q.confirmRead(owner), false
		}
	}
}

// confirmRead is the second half of tryRead, once the reader is counted:
// the writer slot must still be empty, or the reader backs out.
func (q *queue) confirmRead(owner *string) bool {
	if q.writer.Load() != nil {
		q.leaveRead(nil)
		return false
	}
	q.holder.Store(owner)
	return true
}

// leaveWrite empties the writer slot if owner holds it, and grants the
// entries queued meanwhile. It reports whether owner held the slot.
func (q *queue) leaveWrite(owner *string) bool {
	if !q.writer.CompareAndSwap(owner, nil) {
		return false
	}
	if q.state.Load()&queuedBit != 0 {
		q.grantLocking()
	}
	return true
}

// leaveRead takes one fast reader away (owner, if it published its name).
// The last fast reader to leave a queue with entries grants them.
func (q *queue) leaveRead(owner *string) {
	if owner != nil {
		q.holder.CompareAndSwap(owner, nil)
	}
	s := q.state.Add(^uint64(0)) // minus one reader
	if s&queuedBit != 0 && s&fastReaders == 0 {
		q.grantLocking()
	}
}

// grantLocking grants q's entries under the table's lock, for a fast
// holder that has left (or backed out) while entries were queued.
func (q *queue) grantLocking() {
	q.tab.mu.Lock()
	grant(q)
	q.tab.mu.Unlock()
}

// releaseFast gives up a fast hold of q.
func (q *queue) releaseFast(owner *string, excl bool) {
	if excl {
		q.leaveWrite(owner)
		return
	}
	q.leaveRead(owner)
}

// queueFor returns key's queue, making it if the key has none. tab.mu is
// held.
func (tab *Table) queueFor(key string) *queue {
	x := tab.idx.Load()
	if q := x.lookup(key); q != nil {
		return q
	}
	if tab.n >= tab.sweepAt {
		// The new index has room for sweepAt keys: chains stay short.
		x = tab.sweep()
		tab.sweepAt = max(minKeys, 2*tab.n)
	}
	q := &queue{tab: tab, key: key}
	x.insert(q)
	tab.n++
	return q
}

// sweep drops the queues nobody holds or awaits, and publishes a new index
// of the others, with room for twice as many, which it returns. A queue is
// marked dead first, atomically with the check that it has no reader, and
// then its writer slot is checked, so that a fast taker that found it
// before it left the table looks the key up again (a writer that came in
// between keeps it). tab.mu is held.
func (tab *Table) sweep() *index {
	old := tab.idx.Load()
	if old == nil {
		tab.seed = maphash.MakeSeed()
	}
	type kept struct {
		h uint64
		q *queue
	}
	var keep []kept
	old.each(func(h uint64, q *queue) bool {
		if q.head == nil && q.state.CompareAndSwap(0, deadBit) {
			if q.writer.Load() == nil {
				tab.n--
				return true
			}
			q.state.And(^deadBit)
		}
		keep = append(keep, kept{h, q})
		return true
	})
	x := newIndex(tab.seed, 2*len(keep))
	for _, k := range keep {
		x.insertHashed(k.h, k.q)
	}
	tab.idx.Store(x)
	return x
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
// a zero Ticket that was never used. It reports false, leaving tk unused,
// when reqs name no key.
//
// A ticket for a single key nobody holds or awaits in a conflicting way is
// granted through the fast path (see TryHold), without the table's lock.
func (tab *Table) EnqueueInto(tk *Ticket, owner string, reqs []Request) bool {
	tk.tab, tk.owner = tab, owner
	switch {
	case len(reqs) == 1:
		if reqs[0].Key == "" {
			return false
		}
		if q := tab.fastAcquire(&tk.owner, reqs[0].Key, reqs[0].Exclusive); q != nil {
			tk.fast, tk.fastExcl = q, reqs[0].Exclusive
			return true
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
	for i := range tk.entries {
		e := &tk.entries[i]
		e.t = tk
		q := tab.queueFor(e.key)
		e.q = q
		// Setting queuedBit shuts the fast path out; the fast holders it
		// finds are ahead of this entry, and only leave from now on.
		s := q.state.Or(queuedBit)
		fastW, fastR := q.writer.Load() != nil, s&fastReaders != 0
		// Appended at the tail: a writer is granted only when nobody holds
		// or awaits the key, a reader only when no writer holds it or is
		// queued ahead of it, and no reader ahead of it still waits (one
		// may, for a fast writer that has just left and not yet granted
		// it: that grant lets this one in too).
		e.granted = !fastW && ((!e.excl && q.writers == 0 && (q.tail == nil || q.tail.granted)) || (q.head == nil && !fastR))
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
	if tk.ready == nil {
		if tk.released.Load() {
			return ErrReleased
		}
		return nil
	}
	tk.tab.mu.Lock()
	pending, released := tk.pending, tk.released.Load()
	tk.tab.mu.Unlock()
	switch {
	case released:
		return ErrReleased
	case pending == 0:
		return nil
	}
	select {
	case <-tk.ready:
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
// whether this ticket wants it exclusively, and the owner of a ticket
// ahead of it on that key (empty when that holder has just left). ok is
// false when nothing is awaited.
func (tk *Ticket) Waiting() (key string, exclusive bool, holder string, ok bool) {
	tk.tab.mu.Lock()
	defer tk.tab.mu.Unlock()
	if tk.released.Load() {
		return "", false, "", false
	}
	for i := range tk.entries {
		e := &tk.entries[i]
		if e.granted {
			continue
		}
		if h := e.q.head; h != e {
			return e.key, e.excl, h.t.owner, true
		}
		// First in the list: it waits for fast holders.
		if p := e.q.writer.Load(); p != nil {
			holder = *p
		} else if p := e.q.holder.Load(); p != nil {
			holder = *p
		}
		return e.key, e.excl, holder, true
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
	if tk.fast != nil {
		if tk.released.CompareAndSwap(false, true) {
			tk.fast.releaseFast(&tk.owner, tk.fastExcl)
		}
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
			q.state.And(^queuedBit) // the fast path may come back
			continue
		}
		grant(q)
	}
	if tk.ready != nil && tk.pending > 0 {
		close(tk.ready)
	}
}

// grant lets in whoever may now hold q: the writer at the head alone, or
// the run of readers at the head; none while a fast writer holds the key,
// and no writer while fast readers do. tab.mu is held.
func grant(q *queue) {
	if q.writer.Load() != nil {
		return
	}
	s := q.state.Load()
	for e := q.head; e != nil; e = e.next {
		if e.excl {
			if e == q.head && !e.granted && s&fastReaders == 0 {
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

// Len returns how many keys have at least one ticket or hold, queued or
// granted. It walks the table: it is meant for tests and diagnostics.
func (tab *Table) Len() int {
	tab.mu.Lock()
	defer tab.mu.Unlock()
	n := 0
	tab.idx.Load().each(func(_ uint64, q *queue) bool {
		if q.head != nil || q.state.Load()&fastReaders != 0 || q.writer.Load() != nil {
			n++
		}
		return true
	})
	return n
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
	if tk.fast != nil {
		return matchesOne(tk.fast.key, tk.fastExcl, reqs)
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

// matchesOne reports whether reqs, merged the way Enqueue merges them, name
// key alone, exclusively exactly when excl.
func matchesOne(key string, excl bool, reqs []Request) bool {
	named, wants := false, false
	for _, r := range reqs {
		switch r.Key {
		case "":
		case key:
			named, wants = true, wants || r.Exclusive
		default:
			return false
		}
	}
	return named && wants == excl
}
