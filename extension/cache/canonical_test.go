package cache_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/cache"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{` { "a" : [ 1 , 2 ] } `, `{"a":[1,2]}`},
		{`{"z":{"y":1,"x":2},"a":null}`, `{"a":null,"z":{"x":2,"y":1}}`},
		{`1.0`, `1`},
		{`1e0`, `1`},
		{`10e-1`, `1`},
		{`100`, `100`},
		{`1.5E+2`, `150`},
		{`0.50`, `0.5`},
		{`-0`, `0`},
		{`0.000`, `0`},
		{`-12.340`, `-12.34`},
		{`1e21`, `1e+21`},
		{`12345678901234567890`, `12345678901234567890`},
		{`12345678901234567891`, `12345678901234567891`},
		{`"a<b"`, `"a<b"`},
		{`[true,false,"x"]`, `[true,false,"x"]`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := cache.CanonicalJSON([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
	for _, bad := range []string{``, `{`, `{"a":1} {"b":2}`} {
		_, err := cache.CanonicalJSON([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// The approval binding and the cache key use one canonical JSON: they
// disagreed about 1 and 1.0 (the binding kept them apart).
func TestOneCanonicalJSON(t *testing.T) {
	for _, pair := range [][2]string{{`{"n":1}`, `{"n":1.0}`}, {`{"b":1,"a":2}`, `{"a":2,"b":1}`}, {`{"x":1e2}`, `{"x":100}`}} {
		a1, err := approval.Canonical(json.RawMessage(pair[0]))
		require.NoError(t, err)
		a2, err := approval.Canonical(json.RawMessage(pair[1]))
		require.NoError(t, err)
		c1, err := cache.CanonicalJSON([]byte(pair[0]))
		require.NoError(t, err)
		assert.Equal(t, string(a1), string(a2), "the binding: %s and %s mean the same", pair[0], pair[1])
		assert.Equal(t, string(a1), string(c1), "the binding and the cache agree")
	}
}

// A tool that reads an id exactly (json.RawMessage) is not served the result
// of another id: 9007199254740993.0 canonicalised through a double as
// 9007199254740992, so the second call below was a hit with the first
// call's answer.
func TestNoHitForAnotherBigInteger(t *testing.T) {
	type record struct {
		ID json.RawMessage `json:"id"`
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("get", "Get a record", func(_ context.Context, r record) (record, error) {
		return r, nil
	}, tool.ReadOnly()))
	ex := executor.MustNew(reg, executor.WithExtensions(cache.New()))
	get := func(args string) *tool.Result {
		res, err := ex.Execute(context.Background(), tool.Call{ID: "c", Name: "get", Args: json.RawMessage(args)})
		require.NoError(t, err)
		return res
	}
	first := get(`{"id":9007199254740992}`)
	assert.Equal(t, `{"id":9007199254740992}`, string(first.Output))
	other := get(`{"id":9007199254740993.0}`)
	assert.Equal(t, cache.MetaMiss, other.Metadata[cache.MetaKey], "another id")
	assert.Equal(t, `{"id":9007199254740993.0}`, string(other.Output), "the answer for this id, not the cached one for 9007199254740992")
	same := get(`{"id":9.007199254740992e15}`)
	assert.Equal(t, cache.MetaHit, same.Metadata[cache.MetaKey], "the same id written otherwise")
}
