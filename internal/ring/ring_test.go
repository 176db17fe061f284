package ring

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func values(r *Ring[int]) []int {
	var out []int
	r.Do(func(v *int) bool { out = append(out, *v); return true })
	return out
}

func reversed(r *Ring[int]) []int {
	var out []int
	r.Reverse(func(v *int) bool { out = append(out, *v); return true })
	return out
}

func TestRing(t *testing.T) {
	tests := []struct {
		cap    int
		push   int
		want   []int
		total  uint64
		length int
	}{
		{cap: 3, push: 0, want: nil, total: 0},
		{cap: 3, push: 2, want: []int{0, 1}, total: 2, length: 2},
		{cap: 3, push: 3, want: []int{0, 1, 2}, total: 3, length: 3},
		{cap: 3, push: 7, want: []int{4, 5, 6}, total: 7, length: 3},
		{cap: 1, push: 5, want: []int{4}, total: 5, length: 1},
		{cap: 0, push: 5, want: nil, total: 5},
		{cap: -2, push: 1, want: nil, total: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("cap%d_push%d", tt.cap, tt.push), func(t *testing.T) {
			r := New[int](tt.cap)
			for i := 0; i < tt.push; i++ {
				r.Push(i)
			}
			assert.Equal(t, tt.want, values(r))
			var rev []int
			for i := len(tt.want) - 1; i >= 0; i-- {
				rev = append(rev, tt.want[i])
			}
			assert.Equal(t, rev, reversed(r))
			assert.Equal(t, tt.total, r.Total())
			assert.Equal(t, tt.length, r.Len())
		})
	}
}

func TestRingStopsEarlyAndClears(t *testing.T) {
	r := New[int](4)
	for i := 0; i < 6; i++ {
		r.Push(i)
	}
	var seen []int
	r.Do(func(v *int) bool { seen = append(seen, *v); return len(seen) < 2 })
	assert.Equal(t, []int{2, 3}, seen)
	seen = nil
	r.Reverse(func(v *int) bool { seen = append(seen, *v); return false })
	assert.Equal(t, []int{5}, seen)

	r.Clear()
	require.Equal(t, 0, r.Len())
	assert.Nil(t, values(r))
	r.Push(9)
	assert.Equal(t, []int{9}, values(r))
	assert.Equal(t, 4, r.Cap())
}

func TestRingPushDoesNotAllocate(t *testing.T) {
	type rec struct {
		a, b string
		n    int
	}
	r := New[rec](128)
	v := rec{a: "x", b: "y"}
	allocs := testing.AllocsPerRun(1000, func() { r.Push(v) })
	assert.Zero(t, allocs)
}

func ExampleRing() {
	r := New[string](2)
	for _, s := range []string{"a", "b", "c"} {
		r.Push(s)
	}
	r.Do(func(s *string) bool { fmt.Println(*s); return true })
	fmt.Println(r.Len(), r.Total())
	// Output:
	// b
	// c
	// 2 3
}
