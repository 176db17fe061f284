package ratelimit_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/tool"
)

// keyRecorder is a Store that admits every call and records the keys of
// the buckets it was asked for.
type keyRecorder struct {
	mu   sync.Mutex
	keys [][]string
}

func (r *keyRecorder) Take(_ context.Context, bs []ratelimit.Bucket) (ratelimit.Grant, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []string
	for _, b := range bs {
		ks = append(ks, b.Key)
	}
	r.keys = append(r.keys, ks)
	return ratelimit.Grant{OK: true, Remaining: make([]int, len(bs))}, nil
}

func (r *keyRecorder) Give(context.Context, []ratelimit.Bucket) error { return nil }

// ambiguous are principals whose tenant and id, joined with a separator
// (":", "/", NUL) or with the tenant's marker, would read the same.
var ambiguous = []tool.Principal{
	{ID: "a:b:c"}, {Tenant: "a", ID: "b:c"}, {Tenant: "a:b", ID: "c"}, {Tenant: "a:b:c"},
	{ID: "t1:a1:b"}, {Tenant: "a", ID: "b"}, {ID: "1:a"}, {ID: "a"},
	{ID: "a/b/c"}, {Tenant: "a", ID: "b/c"}, {Tenant: "a/b", ID: "c"},
	{Tenant: "a\x00b", ID: "c"}, {Tenant: "a", ID: "b\x00c"}, {ID: "a\x00b\x00c"},
	{}, {Tenant: "x"}, {ID: "x"}, {ID: "tx"}, {Tenant: "t", ID: "x"},
}

// No principal can name itself so that it takes from another's bucket: a
// key per principal (and per tool and principal) is one of its own,
// whatever bytes the tenant and id hold. A guard: it fails if the keys
// were joined with a separator instead of length-prefixed (part in
// ratelimit.go), or named the id without the tenant.
func TestNoPrincipalSharesAnothersBucket(t *testing.T) {
	f := newFixture(t)
	rec := &keyRecorder{}
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.WithStore(rec),
		ratelimit.PerPrincipal("1/hour"), ratelimit.PerToolPrincipal("1/hour"))))
	type owner struct {
		p    tool.Principal
		tool string
	}
	owners := map[string]owner{}
	for _, name := range []string{"fetch", "list"} {
		for _, p := range ambiguous {
			rec.keys = nil
			_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: name, Args: json.RawMessage(`{}`), Principal: p})
			require.NoError(t, err)
			require.Len(t, rec.keys, 1)
			require.Len(t, rec.keys[0], 2, "a principal's bucket and its tool's")
			principalKey, toolKey := rec.keys[0][0], rec.keys[0][1]
			if o, ok := owners[principalKey]; ok {
				assert.Equal(t, p, o.p, "principal bucket %q shared", principalKey)
			}
			owners[principalKey] = owner{p, ""}
			if o, ok := owners[toolKey]; ok {
				t.Errorf("tool+principal bucket %q of %q on %s is also %q on %q's", toolKey, p, name, o.p, o.tool)
			}
			owners[toolKey] = owner{p, name}
		}
	}
	assert.Len(t, owners, len(ambiguous)*3, "one principal bucket each, one per tool and principal")
}

// The same through the MemoryStore: each of the principals above gets its
// one call an hour, whoever called first.
func TestAmbiguousPrincipalsEachGetTheirOwnBudget(t *testing.T) {
	f := newFixture(t)
	ex := executor.MustNew(f.reg, executor.WithExtensions(ratelimit.New(ratelimit.PerPrincipal("1/hour"))))
	for _, p := range ambiguous {
		_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "fetch", Args: json.RawMessage(`{}`), Principal: p})
		assert.NoError(t, err, "%q's budget was spent by another", p)
	}
	_, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "fetch", Args: json.RawMessage(`{}`), Principal: ambiguous[1]})
	assert.ErrorIs(t, err, tool.ErrRateLimited, "the budget is there")
}
