package policy

import (
	"encoding/json"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// The path arguments an input schema declares below the root's own
// properties (options.backup, files[].name, one behind a $ref) are found
// by schema.NestedPaths, approval rules' walk too.

// nestedValues appends the values found at segs in the JSON value v: a
// property under every key a decoder may take for it (sameKey), each item
// of a list, each value of a map. JSON null and "" are left out: the
// argument was not given.
func nestedValues(v []byte, segs []string, out [][]byte) [][]byte {
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
				out = nestedValues(it, segs[1:], out)
			}
		}
		return out
	}
	fields, ok := topFields(v, nil)
	if !ok {
		return out
	}
	for _, f := range fields {
		if segs[0] == schema.ValuesStep || sameKey(f.key, segs[0]) {
			out = nestedValues(f.val, segs[1:], out)
		}
	}
	return out
}
