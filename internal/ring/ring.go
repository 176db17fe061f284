// Package ring is a fixed-capacity ring buffer: the newest Cap values,
// stored in a slice allocated once, so pushing never allocates.
package ring

// Ring holds the last Cap values pushed. The zero value has capacity zero
// and drops everything; build one with New. A Ring is not safe for
// concurrent use: the owner guards it.
type Ring[T any] struct {
	buf   []T
	next  int // index the next Push writes
	n     int // values held, at most len(buf)
	total uint64
}

// New returns a ring that keeps the last capacity values. A capacity below
// one gives a ring that keeps nothing.
func New[T any](capacity int) *Ring[T] {
	if capacity < 0 {
		capacity = 0
	}
	return &Ring[T]{buf: make([]T, capacity)}
}

// Push adds v, overwriting the oldest value when the ring is full.
func (r *Ring[T]) Push(v T) {
	r.total++
	if len(r.buf) == 0 {
		return
	}
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next = 0
	}
	if r.n < len(r.buf) {
		r.n++
	}
}

// Len returns how many values the ring holds.
func (r *Ring[T]) Len() int { return r.n }

// Cap returns the most values the ring holds.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// Total returns how many values were ever pushed, including those
// overwritten since.
func (r *Ring[T]) Total() uint64 { return r.total }

// Do calls fn on each value held, oldest first, until fn returns false.
// fn gets a pointer into the ring's storage: it must not keep it.
func (r *Ring[T]) Do(fn func(*T) bool) {
	start := r.next - r.n
	if start < 0 {
		start += len(r.buf)
	}
	for i := 0; i < r.n; i++ {
		j := start + i
		if j >= len(r.buf) {
			j -= len(r.buf)
		}
		if !fn(&r.buf[j]) {
			return
		}
	}
}

// Reverse calls fn on each value held, newest first, until fn returns false.
// fn gets a pointer into the ring's storage: it must not keep it.
func (r *Ring[T]) Reverse(fn func(*T) bool) {
	for i := 0; i < r.n; i++ {
		j := r.next - 1 - i
		if j < 0 {
			j += len(r.buf)
		}
		if !fn(&r.buf[j]) {
			return
		}
	}
}

// Clear drops every value held, zeroing the storage so that nothing it
// referenced is kept alive.
func (r *Ring[T]) Clear() {
	clear(r.buf)
	r.next, r.n = 0, 0
}
