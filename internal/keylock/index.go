package keylock

import (
	"hash/maphash"
	"sync/atomic"
)

// index maps keys to their queues. It is read without a lock (the fast
// path looks every key up in it) and written under the table's lock.
//
// It is a hash table of buckets of nodes that never change once
// published: an insert publishes a new node at the head of its bucket,
// and a sweep publishes a whole new index holding only the queues it
// keeps. A reader therefore sees either the old or the new state of a
// bucket, never a half-built one. A reader holding an older index may miss
// a key inserted since (it then takes the table's lock and looks again)
// or find a queue swept since (the queue is marked dead, and the reader
// looks again).
//
// Compared with sync.Map (which hashes an interface key and walks a trie
// of interface entries), a lookup here is one string hash, one bucket load
// and a short chain: it saves about half the cost of the fast path's only
// other step besides its compare-and-swap.
type index struct {
	seed    maphash.Seed
	mask    uint64
	buckets []atomic.Pointer[node]
}

// node is one key's entry in a bucket. Its fields never change after it is
// published.
type node struct {
	hash uint64
	q    *queue // q.key is the key
	next *node
}

// minBuckets is the size of a new index.
const minBuckets = 64

func newIndex(seed maphash.Seed, keys int) *index {
	n := minBuckets
	for n < keys {
		n *= 2
	}
	return &index{seed: seed, mask: uint64(n - 1), buckets: make([]atomic.Pointer[node], n)}
}

// lookup returns key's queue, nil if the index has none.
func (x *index) lookup(key string) *queue {
	if x == nil {
		return nil
	}
	h := maphash.String(x.seed, key)
	for n := x.buckets[h&x.mask].Load(); n != nil; n = n.next {
		if n.hash == h && n.q.key == key {
			return n.q
		}
	}
	return nil
}

// insert adds q, whose key the index does not hold. The caller holds the
// table's lock and keeps the index at no more keys than buckets (see
// Table.queueFor), so that chains stay short.
func (x *index) insert(q *queue) {
	x.insertHashed(maphash.String(x.seed, q.key), q)
}

func (x *index) insertHashed(h uint64, q *queue) {
	b := &x.buckets[h&x.mask]
	b.Store(&node{hash: h, q: q, next: b.Load()})
}

// each calls f for every queue of the index, until f returns false.
func (x *index) each(f func(h uint64, q *queue) bool) {
	if x == nil {
		return
	}
	for i := range x.buckets {
		for n := x.buckets[i].Load(); n != nil; n = n.next {
			if !f(n.hash, n.q) {
				return
			}
		}
	}
}
