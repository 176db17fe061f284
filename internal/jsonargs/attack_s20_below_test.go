package jsonargs

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// levelByLevel is Below as it was: each level read again for the next
// step, a list's items by encoding/json.
func levelByLevel(v []byte, segs []string, out []json.RawMessage) []json.RawMessage {
	if len(segs) == 0 {
		if s := strings.TrimSpace(string(v)); s != "null" && s != `""` {
			out = append(out, v)
		}
		return out
	}
	if segs[0] == schema.ItemsStep {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				out = levelByLevel(it, segs[1:], out)
			}
		}
		return out
	}
	ms, _ := Members(v, nil)
	for _, m := range ms {
		if segs[0] == schema.ValuesStep || SameKey(m.Key, segs[0]) {
			out = levelByLevel(m.Val, segs[1:], out)
		}
	}
	return out
}

// FuzzBelowAsLevelByLevel: Below finds in valid JSON what reading it
// level by level finds, in the same order; in other text, at least that
// (a list whose items encoding/json refuses, such as [tru], is read as
// Members reads an object's values).
func FuzzBelowAsLevelByLevel(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":"x"},"A":{"b":"y"},"c":[{"a":1}]}`,
		`{"a":[{"b":"x"},{"b":null},{"b":""},{"B":"z"}],"a":[[1,2],{"b":3}]}`,
		` { "a" : [ [ "x" , "y" ] , [ ] , { } ] , "b" : { "a" : { "a" : "deep" } } } `,
		`{"a":{"\u0062":"esc","ſ":"fold"},"\u0041":["q"]}`,
		`{"a":[tru,"x"]}`, `{"a":{"b" 1}}`, `{"a":[1}]}`, `{"a":1} x`, `{"a":{"b":"x"}`, `[{"a":"x"}]`, `"x"`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	paths := [][]string{
		{"a"}, {"a", "b"}, {"a", schema.ItemsStep}, {"a", schema.ItemsStep, "b"}, {"a", schema.ItemsStep, schema.ItemsStep},
		{schema.ValuesStep}, {schema.ValuesStep, "b"}, {schema.ValuesStep, schema.ValuesStep}, {"b", "a", "a"},
		{schema.ItemsStep}, {schema.ItemsStep, "a"}, {"a", schema.ValuesStep, schema.ItemsStep},
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		for _, segs := range paths {
			got, want := Below(v, segs, nil), levelByLevel(v, segs, nil)
			if json.Valid(v) {
				if len(got) != len(want) {
					t.Fatalf("%q at %q: %q, level by level %q", v, segs, got, want)
				}
				for i := range got {
					if string(got[i]) != string(want[i]) {
						t.Fatalf("%q at %q: %q, level by level %q", v, segs, got, want)
					}
				}
				continue
			}
			found := map[string]int{}
			for _, g := range got {
				found[string(g)]++
			}
			for _, w := range want {
				if found[string(w)]--; found[string(w)] < 0 {
					t.Fatalf("%q at %q: %q misses %q, which level by level finds (%q)", v, segs, got, w, want)
				}
			}
		}
	})
}

// TestAttackS20BelowReadsTheArgumentsOnce: Below read each level of the
// arguments again for the next step (Members, or json.Unmarshal for a
// list's items), so a path declared 31 levels deep read arguments nested
// that deep 31 times. An MCP server's schema may declare 256 such paths
// (schema.MaxNestedPaths) and the policy and the approval rules walk each
// for every call: 248 paths over 1 MiB of arguments took 2.1 s through
// maps and 17.9 s through lists, each time. A path 31 levels deep must
// cost no more than twice a path one level deep over the same arguments
// (both read them whole). The cost is counted, not timed (a shared
// machine's clock is noise), two ways, one for each way of reading again:
// the bytes of strings read (stringBytesRead: Members reads each level's
// values again, allocating nothing), and the bytes allocated (encoding/json
// copies a list's items, the arguments again at each level). Below counts
// the same at both depths here; levelByLevel, the old way, read 31 times
// the strings through maps and allocated 16 times as much through lists,
// and fails both.
func TestAttackS20BelowReadsTheArgumentsOnce(t *testing.T) {
	const depth, payload = 31, 4 << 20
	big := `"` + strings.Repeat("x", payload) + `"`
	for _, c := range []struct {
		name       string
		open, shut string
		step       string
	}{
		{"maps", `{"a":`, `}`, schema.ValuesStep},
		{"lists", `[`, `]`, schema.ItemsStep},
	} {
		args := []byte(strings.Repeat(c.open, depth) + big + strings.Repeat(c.shut, depth))
		cost := func(levels int) (read int, allocated uint64) {
			segs := make([]string, levels)
			for i := range segs {
				segs[i] = c.step
			}
			stringBytesRead = &read
			defer func() { stringBytesRead = nil }()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := Below(args, segs, nil)
			runtime.ReadMemStats(&after)
			if levels == depth {
				assert.Len(t, got, 1, "the payload is found")
			}
			return read, after.TotalAlloc - before.TotalAlloc
		}
		shallowRead, shallowAlloc := cost(1)
		deepRead, deepAlloc := cost(depth)
		t.Logf("%s: %d levels read %d bytes of strings and allocated %d bytes; one level %d and %d", c.name, depth, deepRead, deepAlloc, shallowRead, shallowAlloc)
		assert.GreaterOrEqual(t, shallowRead, payload, "%s: the count sees one level's reading of the payload", c.name)
		assert.LessOrEqual(t, deepRead, 2*shallowRead, "%s: %d levels read %d bytes of strings, one level %d", c.name, depth, deepRead, shallowRead)
		// Another copy of the arguments is another reading of them.
		assert.Less(t, deepAlloc, 2*shallowAlloc+payload, "%s: %d levels allocated %d bytes, one level %d", c.name, depth, deepAlloc, shallowAlloc)
	}
}
