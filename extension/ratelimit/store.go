package ratelimit

import (
	"container/list"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const shards = 64

// sweepPerInsert is how many least-recently-used buckets an insert looks at
// for idleness: eviction is amortised over inserts, with no goroutine.
const sweepPerInsert = 4

type bucket struct {
	key     string
	display string // the key as Info shows it
	label   string // rate.String(), computed once
	lim     *rate.Limiter
	rate    Rate
	last    time.Time
	elem    *list.Element
}

type shard struct {
	mu  sync.Mutex
	m   map[string]*bucket
	lru list.List // front: most recently used
}

// store is a bounded, sharded map of token buckets.
type store struct {
	joined   bool // keys are tool + keySep + principal
	seed     maphash.Seed
	perShard int
	shards   [shards]shard
}

func newStore(maxBuckets int) *store {
	s := &store{seed: maphash.MakeSeed(), perShard: max(1, maxBuckets/shards)}
	for i := range s.shards {
		s.shards[i].m = map[string]*bucket{}
	}
	return s
}

// bucket returns key's bucket (created at r when missing), marked used at
// now. The key is bytes so that callers can build it on the stack: looking
// up an existing bucket allocates nothing. The caller takes its token.
func (s *store) bucket(key []byte, r Rate, now time.Time) *bucket {
	sh := &s.shards[maphash.Bytes(s.seed, key)%shards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b := sh.m[string(key)]
	if b == nil {
		sh.sweep(now, sweepPerInsert)
		for len(sh.m) >= s.perShard {
			sh.evict(sh.lru.Back().Value.(*bucket))
		}
		k := string(key)
		display := k
		if s.joined {
			display = strings.Replace(k, keySep, "/", 1)
		}
		b = &bucket{key: k, display: display, label: r.String(), lim: rate.NewLimiter(r.Limit(), r.burst()), rate: r}
		b.elem = sh.lru.PushFront(b)
		sh.m[k] = b
	} else {
		sh.lru.MoveToFront(b.elem)
	}
	b.last = now
	return b
}

// keySep separates the tool and the principal in a tool+principal key.
const keySep = "\x00"

func (sh *shard) evict(b *bucket) {
	sh.lru.Remove(b.elem)
	delete(sh.m, b.key)
}

// sweep drops up to n idle buckets from the LRU end: a bucket untouched for
// its full refill time is equal to a new one.
func (sh *shard) sweep(now time.Time, n int) int {
	dropped := 0
	for e := sh.lru.Back(); e != nil && (n < 0 || dropped < n); {
		b := e.Value.(*bucket)
		if now.Sub(b.last) < b.rate.refill() {
			break
		}
		prev := e.Prev()
		sh.evict(b)
		dropped++
		e = prev
	}
	return dropped
}

func (s *store) len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

func (s *store) sweepAll(now time.Time) int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.sweep(now, -1)
		sh.mu.Unlock()
	}
	return n
}
