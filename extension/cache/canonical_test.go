package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		{`100`, `1e2`},
		{`1.5E+2`, `15e1`},
		{`0.50`, `5e-1`},
		{`-0`, `0`},
		{`0.000`, `0`},
		{`-12.340`, `-1234e-2`},
		{`12345678901234567890`, `1234567890123456789e1`},
		{`12345678901234567891`, `12345678901234567891`},
		{`"a<b"`, `"a\u003cb"`},
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
