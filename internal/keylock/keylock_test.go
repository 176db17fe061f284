package keylock

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func w(key string) Request { return Request{Key: key, Exclusive: true} }
func r(key string) Request { return Request{Key: key} }

func TestGrantRules(t *testing.T) {
	tests := []struct {
		name  string
		first []Request
		then  []Request
		ready bool
	}{
		{"reader after reader shares", []Request{r("a")}, []Request{r("a")}, true},
		{"writer after reader waits", []Request{r("a")}, []Request{w("a")}, false},
		{"reader after writer waits", []Request{w("a")}, []Request{r("a")}, false},
		{"writer after writer waits", []Request{w("a")}, []Request{w("a")}, false},
		{"different keys run in parallel", []Request{w("a")}, []Request{w("b")}, true},
		{"one shared key of several blocks", []Request{w("b")}, []Request{r("a"), w("b"), r("c")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab Table
			a := tab.Enqueue("first", tt.first)
			require.True(t, a.Ready())
			b := tab.Enqueue("second", tt.then)
			assert.Equal(t, tt.ready, b.Ready())
			if !tt.ready {
				key, _, holder, ok := b.Waiting()
				assert.True(t, ok)
				assert.Equal(t, "first", holder)
				assert.NotEmpty(t, key)
			}
			a.Release()
			assert.True(t, b.Ready(), "released first lets second in")
			b.Release()
			assert.Zero(t, tab.Len(), "no key is kept once every ticket is released")
		})
	}
}

func TestReaderBehindWriterWaitsEvenIfReadersHold(t *testing.T) {
	var tab Table
	r1 := tab.Enqueue("r1", []Request{r("k")})
	wr := tab.Enqueue("w", []Request{w("k")})
	r2 := tab.Enqueue("r2", []Request{r("k")})
	assert.True(t, r1.Ready())
	assert.False(t, wr.Ready())
	assert.False(t, r2.Ready(), "a reader queued behind a writer must not overtake it")
	r1.Release()
	assert.True(t, wr.Ready())
	assert.False(t, r2.Ready())
	wr.Release()
	assert.True(t, r2.Ready())
	r2.Release()
	assert.Zero(t, tab.Len())
}

func TestReleaseOfQueuedTicketLetsLaterOnesIn(t *testing.T) {
	var tab Table
	r1 := tab.Enqueue("r1", []Request{r("k")})
	wr := tab.Enqueue("w", []Request{w("k")})
	r2 := tab.Enqueue("r2", []Request{r("k")})
	require.False(t, r2.Ready())
	wr.Release() // gives up while still queued (a cancelled call)
	assert.True(t, r2.Ready(), "with the writer gone, the reader joins the readers at the head")
	r1.Release()
	r2.Release()
	assert.Zero(t, tab.Len())
}

func TestDuplicatesMergeAndEmptyKeysIgnored(t *testing.T) {
	var tab Table
	assert.Nil(t, tab.Enqueue("x", nil))
	assert.Nil(t, tab.Enqueue("x", []Request{{Key: ""}}))
	assert.Nil(t, tab.Enqueue("x", []Request{{Key: ""}, {Key: ""}}))
	a := tab.Enqueue("a", []Request{r("k"), w("k"), {Key: ""}})
	require.NotNil(t, a)
	assert.Len(t, a.entries, 1)
	assert.True(t, a.entries[0].excl, "read+write on one key is a write")
	b := tab.Enqueue("b", []Request{r("k")})
	assert.False(t, b.Ready())
	a.Release()
	a.Release() // idempotent
	var nilTicket *Ticket
	nilTicket.Release()
	assert.True(t, b.Ready())
	b.Release()
	assert.Zero(t, tab.Len())
}

func TestWaitHonoursContextAndKeepsPlace(t *testing.T) {
	var tab Table
	a := tab.Enqueue("a", []Request{w("k")})
	b := tab.Enqueue("b", []Request{w("k")})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, b.Wait(ctx), context.DeadlineExceeded)
	a.Release()
	assert.NoError(t, b.Wait(context.Background()), "the ticket kept its place after a failed wait")
	b.Release()
	assert.ErrorIs(t, b.Wait(context.Background()), ErrReleased)
}

func TestWaitWokenByRelease(t *testing.T) {
	var tab Table
	a := tab.Enqueue("a", []Request{w("k")})
	b := tab.Enqueue("b", []Request{w("k")})
	done := make(chan error)
	go func() { done <- b.Wait(context.Background()) }()
	b.Release() // the owner gives up from elsewhere
	assert.ErrorIs(t, <-done, ErrReleased)
	a.Release()
	assert.Zero(t, tab.Len())
}

// TestFIFOPerKey: tickets taken in order 0..n-1 on one key are served in
// that order even though their owners start waiting in random order.
func TestFIFOPerKey(t *testing.T) {
	var tab Table
	const n = 200
	tickets := make([]*Ticket, n)
	for i := range tickets {
		tickets[i] = tab.Enqueue(fmt.Sprint(i), []Request{w("k")})
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for _, i := range rand.Perm(n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, tickets[i].Wait(context.Background()))
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			tickets[i].Release()
		}()
	}
	wg.Wait()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order)
	assert.Zero(t, tab.Len())
}

// TestManyKeysNoDeadlock: owners holding random sets of keys, listed in
// random order, all finish, and a writer is always alone on its key.
func TestManyKeysNoDeadlock(t *testing.T) {
	var tab Table
	keys := []string{"a", "b", "c", "d", "e"}
	var holders [5]atomic.Int32 // >0 readers, -1 writer
	var wg sync.WaitGroup
	var bad atomic.Int32
	for i := 0; i < 400; i++ {
		var reqs []Request
		for _, k := range rand.Perm(len(keys))[:1+rand.IntN(3)] {
			reqs = append(reqs, Request{Key: keys[k], Exclusive: rand.IntN(2) == 0})
		}
		tk := tab.Enqueue(fmt.Sprint(i), reqs)
		held := merged(reqs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer tk.Release()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tk.Wait(ctx); err != nil {
				bad.Add(100)
				return
			}
			bad.Add(occupy(&holders, held))
		}()
	}
	wg.Wait()
	assert.Zero(t, bad.Load(), "no deadlock (would time out) and no writer shared its key")
	assert.Zero(t, tab.Len())
}

// BenchmarkUncontended takes and releases one key nobody else wants: a
// ticket, and as the baseline a hand-rolled table (a map of counters under
// one mutex, no queueing).
func BenchmarkUncontended(b *testing.B) {
	const key = "file:/src/main.go"
	reqs := []Request{w(key)}
	b.Run("ticket", func(b *testing.B) {
		var tab Table
		b.ReportAllocs()
		for b.Loop() {
			tk := tab.Enqueue("c", reqs)
			_ = tk.Wait(context.Background())
			tk.Release()
		}
	})
	b.Run("baseline_mutex_map", func(b *testing.B) {
		var mu sync.Mutex
		held := map[string]int{}
		b.ReportAllocs()
		for b.Loop() {
			mu.Lock()
			held[key]++
			mu.Unlock()
			mu.Lock()
			if held[key]--; held[key] == 0 {
				delete(held, key)
			}
			mu.Unlock()
		}
	})
}

func ExampleTable() {
	var tab Table
	reader := tab.Enqueue("reader", []Request{{Key: "file:a.txt"}})
	writer := tab.Enqueue("writer", []Request{{Key: "file:a.txt", Exclusive: true}})
	fmt.Println("reader granted:", reader.Ready())
	fmt.Println("writer granted:", writer.Ready())
	key, _, holder, _ := writer.Waiting()
	fmt.Println("writer waits for", key, "held by", holder)
	reader.Release()
	fmt.Println("writer granted:", writer.Ready())
	writer.Release()
	// Output:
	// reader granted: true
	// writer granted: false
	// writer waits for file:a.txt held by reader
	// writer granted: true
}

// merged is reqs merged as Enqueue merges them: key to exclusive.
func merged(reqs []Request) map[string]bool {
	m := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		m[r.Key] = m[r.Key] || r.Exclusive
	}
	return m
}

// occupy marks the keys held (one counter per key, named by its first
// letter: >0 readers, -1 a writer) for a moment, and returns how many
// times a writer found company or a reader found a writer.
func occupy(holders *[5]atomic.Int32, held map[string]bool) (bad int32) {
	for key, excl := range held {
		h := &holders[key[0]-'a']
		if excl {
			if !h.CompareAndSwap(0, -1) {
				bad++
			}
		} else if h.Add(1) <= 0 {
			bad++
		}
	}
	time.Sleep(10 * time.Microsecond)
	for key, excl := range held {
		h := &holders[key[0]-'a']
		if excl {
			h.Store(0)
		} else {
			h.Add(-1)
		}
	}
	return bad
}

// TestReaderDoesNotOvertakeAWaitingReader: readers queued behind a writer
// are granted together when it leaves, never one ahead of another, and a
// reader that comes after a waiting writer waits for it.
func TestReaderDoesNotOvertakeAWaitingReader(t *testing.T) {
	var tab Table
	wr := tab.Enqueue("w", []Request{w("k")})
	require.True(t, wr.Ready())
	r1 := tab.Enqueue("r1", []Request{r("k")})
	require.False(t, r1.Ready(), "r1 waits for the writer")
	r2 := tab.Enqueue("r2", []Request{r("k")})
	assert.False(t, r2.Ready(), "r2 came after r1, which still waits")
	wr.Release()
	assert.True(t, r1.Ready())
	assert.True(t, r2.Ready(), "granted with r1: readers share")
	w2 := tab.Enqueue("w2", []Request{w("k")})
	r3 := tab.Enqueue("r3", []Request{r("k")})
	assert.False(t, w2.Ready())
	assert.False(t, r3.Ready(), "a reader behind a waiting writer waits, although readers hold the key")
	r1.Release()
	r2.Release()
	assert.True(t, w2.Ready())
	w2.Release()
	assert.True(t, r3.Ready())
	r3.Release()
	assert.Zero(t, tab.Len())
}

// Ahead finds the tickets queued ahead of one on any of its keys, and none
// behind it or on keys it does not name.
func TestAheadFindsOnlyTicketsAhead(t *testing.T) {
	var tab Table
	a := tab.Enqueue("a", []Request{w("x")})
	b := tab.Enqueue("b", []Request{r("y")})
	c := tab.Enqueue("c", []Request{r("x"), w("y")})
	d := tab.Enqueue("d", []Request{w("y")})
	defer func() {
		for _, tk := range []*Ticket{a, b, c, d} {
			tk.Release()
		}
	}()
	seen := map[any]string{}
	_, _, ok := c.Ahead(func(owner any) bool { seen[owner] = ""; return false })
	assert.False(t, ok)
	assert.Equal(t, map[any]string{"a": "", "b": ""}, seen, "only a (on x) and b (on y) are ahead of c")
	key, owner, ok := c.Ahead(func(owner any) bool { return owner == "b" })
	assert.True(t, ok)
	assert.Equal(t, "y", key)
	assert.Equal(t, "b", owner)
	_, _, ok = a.Ahead(func(any) bool { return true })
	assert.False(t, ok, "nothing is ahead of the first ticket")
	b.Release()
	_, _, ok = c.Ahead(func(owner any) bool { return owner == "b" })
	assert.False(t, ok, "a released ticket is no longer ahead")
}

// Ahead follows the waits of the tickets ahead: a waits for x on z, and x
// for c on y, so a waits for c, through z.
func TestAheadFollowsWaitsThroughOtherTickets(t *testing.T) {
	var tab Table
	c := tab.Enqueue("c", []Request{w("y")})
	x := tab.Enqueue("x", []Request{w("z"), w("y")})
	a := tab.Enqueue("a", []Request{w("z")})
	defer func() {
		for _, tk := range []*Ticket{a, x, c} {
			tk.Release()
		}
	}()
	key, owner, ok := a.Ahead(func(owner any) bool { return owner == "c" })
	assert.True(t, ok)
	assert.Equal(t, "z", key, "the key of a's own through which it waits")
	assert.Equal(t, "c", owner)
	c.Release() // x now holds both keys: a waits for x alone
	_, _, ok = a.Ahead(func(owner any) bool { return owner == "c" })
	assert.False(t, ok)
}
