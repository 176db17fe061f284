package keylock

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGrantsMatchTheRules checks the table against its rules, recomputed
// from scratch after every step of random runs of enqueues and releases
// (in any order, granted or still queued): on each key, the writer at the
// head holds it alone, or the readers ahead of the first writer share it;
// a ticket is ready when it holds every key it asked for.
func TestGrantsMatchTheRules(t *testing.T) {
	type live struct {
		tk   *Ticket
		reqs map[string]bool // key -> exclusive
	}
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "c", "d"}
	for run := range 300 {
		var tab Table
		var order []*live // in enqueue order
		for step := range 60 {
			if len(order) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(order))
				order[i].tk.Release()
				order = slices.Delete(order, i, i+1)
			} else {
				var reqs []Request
				for _, k := range keys {
					if rng.IntN(3) == 0 {
						reqs = append(reqs, Request{Key: k, Exclusive: rng.IntN(2) == 0})
					}
				}
				if tk := tab.Enqueue("o", reqs); tk != nil {
					order = append(order, &live{tk, merged(reqs)})
				}
			}
			holds := map[*live]int{}
			for _, k := range keys {
				j := 0 // place in k's queue
				for _, l := range order {
					excl, ok := l.reqs[k]
					if !ok {
						continue
					}
					if excl && j > 0 {
						break
					}
					holds[l]++
					if excl {
						break
					}
					j++
				}
			}
			for i, l := range order {
				require.Equal(t, holds[l] == len(l.reqs), l.tk.Ready(), "run %d step %d ticket %d", run, step, i)
			}
		}
		for _, l := range order {
			l.tk.Release()
		}
		require.Zero(t, tab.Len())
	}
}

// BenchmarkManyReadersOneKey: n readers queued on one key (a batch of n
// read calls of one file is admitted at once), then released in order.
// It was quadratic while a key's queue was a slice scanned from the head
// at every enqueue and release: n=10,000 took 305 ms and n=40,000 4.9 s,
// under the table's one mutex (every call's locks waited); now 7 ms and
// 33 ms.
func BenchmarkManyReadersOneKey(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 40_000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var tab Table
				tks := make([]*Ticket, n)
				for i := range tks {
					tks[i] = tab.Enqueue("r", []Request{{Key: "k"}})
				}
				for _, tk := range tks {
					tk.Release()
				}
			}
		})
	}
}

// BenchmarkManyKeysOneTicket: one call declaring n resources.
func BenchmarkManyKeysOneTicket(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		reqs := make([]Request, n)
		for i := range reqs {
			reqs[i] = Request{Key: fmt.Sprint("file:", i), Exclusive: true}
		}
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var tab Table
				tab.Enqueue("w", reqs).Release()
			}
		})
	}
}
