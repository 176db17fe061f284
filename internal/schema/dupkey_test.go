package schema

import (
	"fmt"
	"strings"
	"testing"
)

func TestUniqueKeys(t *testing.T) {
	big := func(dup bool) string {
		var b strings.Builder
		b.WriteString(`{"nested":{"k":1,"k2":[{"k":1}]}`)
		for i := range 100 {
			fmt.Fprintf(&b, `,"key%d":%d`, i, i)
		}
		if dup {
			b.WriteString(`,"key7":"again"`)
		}
		b.WriteString(`}`)
		return b.String()
	}
	for _, tc := range []struct {
		in, dup string
	}{
		{`{}`, ""},
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}],"d":"\"a\":1"}`, ""},
		{`{"a":"x\\","a":"\\\"","b":1}`, "a"},
		{`{"a":"\\\"a\":","b":1}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":1,"b":2}}`, "b"},
		{`{"a":[1,{"b":1,"c":[],"b":2}]}`, "b"},
		{`{"a":{},"a":[]}`, "a"},
		{`{"path":1,"p\u0061th":2}`, "path"},
		{"{\"\xff\":1,\"\xfe\":2}", "\uFFFD"},
		{`{"x":{"a":1},"y":{"a":1},"a":0}`, ""},
		{big(false), ""},
		{big(true), "key7"},
	} {
		err := UniqueKeys([]byte(tc.in))
		if tc.dup == "" {
			if err != nil {
				t.Errorf("UniqueKeys(%.60s): %v", tc.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q twice", tc.dup)) {
			t.Errorf("UniqueKeys(%.60s) = %v, want the key %q named", tc.in, err, tc.dup)
		}
	}
}

// BenchmarkUniqueKeys is the check on the core benchmark's arguments.
func BenchmarkUniqueKeys(b *testing.B) {
	args := []byte(`{"query":"sandbox escape","limit":10,"kind":"code","near":{"street":"1 Main St","city":"Springfield","zip":"12345"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := UniqueKeys(args); err != nil {
			b.Fatal(err)
		}
	}
}
