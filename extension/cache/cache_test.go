package cache_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type query struct {
	Q     string  `json:"q"`
	Limit float64 `json:"limit,omitempty"`
	Tags  []int   `json:"tags,omitempty"`
}

type answer struct {
	Q    string   `json:"q"`
	Hits []string `json:"hits"`
}

type backend struct {
	runs atomic.Int64
	gate func() // runs inside the backend before it answers, when set
	fail atomic.Bool
}

func (b *backend) fn(_ context.Context, q query) (answer, error) {
	b.runs.Add(1)
	if b.gate != nil {
		b.gate()
	}
	if b.fail.Load() {
		return answer{}, tool.NewError(tool.CodeUnavailable, "down")
	}
	return answer{Q: q.Q, Hits: []string{"a", "b"}}, nil
}

func setup(t testing.TB, b *backend, c *cache.Cache, opts ...tool.Option) *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("search", "Search", b.fn, opts...))
	return executor.MustNew(reg, executor.WithExtensions(c))
}

func call(args string) tool.Call {
	return tool.Call{ID: "c", Name: "search", Args: json.RawMessage(args)}
}

func exec(t testing.TB, ex *executor.Executor, args string) *tool.Result {
	res, err := ex.Execute(context.Background(), call(args))
	require.NoError(t, err)
	return res
}

func TestHitMissAndCanonicalArgs(t *testing.T) {
	b := &backend{}
	c := cache.New()
	ex := setup(t, b, c, tool.ReadOnly())
	r1 := exec(t, ex, `{"q":"go","limit":10,"tags":[1,2]}`)
	assert.Equal(t, cache.MetaMiss, r1.Metadata[cache.MetaKey])
	r2 := exec(t, ex, `{"tags":[1.0,2e0],"limit":1e1,"q":"go"}`)
	assert.Equal(t, cache.MetaHit, r2.Metadata[cache.MetaKey])
	assert.JSONEq(t, string(r1.Output), string(r2.Output))
	assert.Equal(t, int64(1), b.runs.Load())

	exec(t, ex, `{"q":"rust"}`)
	assert.Equal(t, int64(2), b.runs.Load(), "different arguments miss")
	s := c.Stats()
	assert.Equal(t, int64(1), s.Hits)
	assert.Equal(t, int64(2), s.Misses)
	assert.Equal(t, 2, s.Entries)
}

func TestOnlyReadOnlyAndIdempotent(t *testing.T) {
	cases := []struct {
		name string
		ann  tool.Annotations
		runs int64
	}{
		{"read-only and idempotent", tool.Annotations{ReadOnly: true, Idempotent: true}, 1},
		{"read-only only", tool.Annotations{ReadOnly: true}, 3},
		{"idempotent only", tool.Annotations{Idempotent: true}, 3},
		{"neither", tool.Annotations{}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &backend{}
			ex := setup(t, b, cache.New(), tool.WithAnnotations(tc.ann))
			for range 3 {
				res := exec(t, ex, `{"q":"x"}`)
				if tc.runs == 3 {
					assert.NotContains(t, res.Metadata, cache.MetaKey)
				}
			}
			assert.Equal(t, tc.runs, b.runs.Load())
		})
	}
}

func TestFailuresNotCached(t *testing.T) {
	b := &backend{}
	b.fail.Store(true)
	ex := setup(t, b, cache.New(), tool.ReadOnly())
	for range 2 {
		_, err := ex.Execute(context.Background(), call(`{"q":"x"}`))
		require.Error(t, err)
	}
	assert.Equal(t, int64(2), b.runs.Load())
	b.fail.Store(false)
	exec(t, ex, `{"q":"x"}`)
	assert.Equal(t, cache.MetaHit, exec(t, ex, `{"q":"x"}`).Metadata[cache.MetaKey])
}

func TestHitIsACopy(t *testing.T) {
	b := &backend{}
	ex := setup(t, b, cache.New(), tool.ReadOnly())
	first := exec(t, ex, `{"q":"x"}`)
	want := string(first.Output)
	// Mutate everything a caller could reach, on the miss and on a hit.
	first.Output[2] = 'X'
	first.Metadata["cache"] = "poisoned"
	hit := exec(t, ex, `{"q":"x"}`)
	require.Equal(t, want, string(hit.Output))
	for i := range hit.Output {
		hit.Output[i] = ' '
	}
	hit.Metadata["extra"] = 1
	hit.Status = tool.StatusFailed

	again := exec(t, ex, `{"q":"x"}`)
	assert.Equal(t, want, string(again.Output))
	assert.Equal(t, cache.MetaHit, again.Metadata[cache.MetaKey])
	assert.NotContains(t, again.Metadata, "extra")
	assert.True(t, again.OK())
	assert.Equal(t, int64(1), b.runs.Load())
}

func TestVersionChangeMisses(t *testing.T) {
	c := cache.New()
	b1, b2 := &backend{}, &backend{}
	ex1 := setup(t, b1, c, tool.ReadOnly(), tool.WithVersion("1"))
	exec(t, ex1, `{"q":"x"}`)
	assert.Equal(t, cache.MetaHit, exec(t, ex1, `{"q":"x"}`).Metadata[cache.MetaKey])

	// Re-registered under a new version, with the same cache instance.
	ex2 := setup(t, b2, c, tool.ReadOnly(), tool.WithVersion("2"))
	res := exec(t, ex2, `{"q":"x"}`)
	assert.Equal(t, cache.MetaMiss, res.Metadata[cache.MetaKey])
	assert.Equal(t, int64(1), b2.runs.Load())
}

func TestTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &backend{}
		ex := setup(t, b, cache.New(cache.WithTTL(time.Minute)), tool.ReadOnly())
		exec(t, ex, `{"q":"x"}`)
		time.Sleep(59 * time.Second) // synctest: the bubble's clock moves to just before the TTL
		assert.Equal(t, cache.MetaHit, exec(t, ex, `{"q":"x"}`).Metadata[cache.MetaKey])
		time.Sleep(time.Second) // and to the TTL
		assert.Equal(t, cache.MetaMiss, exec(t, ex, `{"q":"x"}`).Metadata[cache.MetaKey], "expired at the TTL")
		assert.Equal(t, int64(2), b.runs.Load())
	})
}

func TestLRUBounds(t *testing.T) {
	t.Run("entries", func(t *testing.T) {
		b := &backend{}
		c := cache.New(cache.WithMaxEntries(2))
		ex := setup(t, b, c, tool.ReadOnly())
		exec(t, ex, `{"q":"a"}`)
		exec(t, ex, `{"q":"b"}`)
		exec(t, ex, `{"q":"a"}`) // a is now the most recently used
		exec(t, ex, `{"q":"c"}`) // evicts b
		assert.Equal(t, 2, c.Stats().Entries)
		assert.Equal(t, cache.MetaHit, exec(t, ex, `{"q":"a"}`).Metadata[cache.MetaKey])
		assert.Equal(t, cache.MetaMiss, exec(t, ex, `{"q":"b"}`).Metadata[cache.MetaKey])
	})
	t.Run("bytes", func(t *testing.T) {
		b := &backend{}
		c := cache.New(cache.WithMaxBytes(1000))
		ex := setup(t, b, c, tool.ReadOnly())
		for _, q := range []string{"a", "b", "c", "d", "e", "f"} {
			exec(t, ex, `{"q":"`+q+`"}`)
			assert.LessOrEqual(t, c.Stats().Bytes, int64(1000))
		}
		assert.Less(t, c.Stats().Entries, 6)
		assert.Equal(t, cache.MetaHit, exec(t, ex, `{"q":"f"}`).Metadata[cache.MetaKey])

		// A result larger than the whole bound is never stored.
		c.Purge()
		big := `{"q":"` + stringsRepeat("z", 2000) + `"}`
		exec(t, ex, big)
		assert.Zero(t, c.Stats().Entries)
	})
}

func stringsRepeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// 50 concurrent identical calls: the backend runs once. The backend waits
// until all 50 calls have entered the chain, so without collapsing every
// one of them would be inside the backend.
func TestConcurrentIdenticalCallsCollapse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50
		var entered atomic.Int64
		b := &backend{}
		var gated atomic.Bool
		b.gate = func() {
			if gated.Swap(true) {
				return // a second run: the check on b.runs below fails the test
			}
			// Returns once every other goroutine of the bubble is blocked:
			// every other caller has entered the chain and waits in the flight.
			synctest.Wait()
			assert.Equal(t, int64(n), entered.Load(), "every call entered the chain while the backend ran")
		}
		counter := extension.Hooks{ExtName: "counter", Prio: extension.PriorityLogging, Before: func(context.Context, *extension.Request) *tool.Result {
			entered.Add(1)
			return nil
		}}
		c := cache.New()
		reg := registry.New()
		reg.MustRegister(tool.Func("search", "Search", b.fn, tool.ReadOnly()))
		ex := executor.MustNew(reg, executor.WithExtensions(c, counter))

		var wg sync.WaitGroup
		results := make([]*tool.Result, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := ex.Execute(context.Background(), call(`{"q":"same"}`))
				assert.NoError(t, err)
				results[i] = res
			}()
		}
		wg.Wait()
		assert.Equal(t, int64(1), b.runs.Load(), "the backend ran once")
		kinds := map[any]int{}
		for i, r := range results {
			require.NotNil(t, r)
			kinds[r.Metadata[cache.MetaKey]]++
			for j := range i {
				assert.NotSame(t, results[j], r, "every caller gets its own result")
			}
		}
		assert.Equal(t, 1, kinds[cache.MetaMiss])
		assert.Equal(t, n-1, kinds[cache.MetaShared]+kinds[cache.MetaHit])
	})
}

func TestWaiterHonoursItsContext(t *testing.T) {
	release, inside := make(chan struct{}), make(chan struct{})
	var entered sync.Once
	b := &backend{gate: func() {
		entered.Do(func() { close(inside) })
		<-release
	}}
	ex := setup(t, b, cache.New(), tool.ReadOnly())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := ex.Execute(context.Background(), call(`{"q":"slow"}`))
		assert.NoError(t, err)
	}()
	<-inside // the first call is in the backend: the next one waits for its flight
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	res, err := ex.Execute(ctx, call(`{"q":"slow"}`))
	require.Error(t, err)
	assert.Contains(t, []tool.Code{tool.CodeTimeout, tool.CodeCancelled}, res.Error.Code)
	close(release)
	<-done
	assert.Equal(t, int64(1), b.runs.Load())
}

func TestKeyedByPrincipalByDefault(t *testing.T) {
	b := &backend{}
	ex := setup(t, b, cache.New(), tool.ReadOnly())
	for _, who := range []string{"alice", "bob", "alice"} {
		c := call(`{"q":"mine"}`)
		c.Principal.ID = who
		_, err := ex.Execute(context.Background(), c)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(2), b.runs.Load())
}

// A tenant or id holding a NUL byte served one principal another's cached
// result: the key joined the fields with NULs.
func TestKeyByPrincipalNoCollision(t *testing.T) {
	b := &backend{}
	ex := setup(t, b, cache.New(), tool.ReadOnly())
	for _, p := range []tool.Principal{{Tenant: "a\x00b", ID: "c"}, {Tenant: "a", ID: "b\x00c"}} {
		c := call(`{"q":"mine"}`)
		c.Principal = p
		res, err := ex.Execute(context.Background(), c)
		require.NoError(t, err)
		assert.NotEqual(t, cache.MetaHit, res.Metadata[cache.MetaKey], "principal %+v must not get another's result", p)
	}
	assert.Equal(t, int64(2), b.runs.Load(), "each principal ran its own call")
}

func TestPriority(t *testing.T) {
	c := cache.New()
	assert.Equal(t, extension.PriorityCache, c.Priority())
	assert.Equal(t, cache.Name, c.Name())
}
