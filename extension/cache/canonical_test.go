package cache_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension/cache"
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
