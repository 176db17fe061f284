package approval

import (
	"encoding/json"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/schema"
)

// The path arguments an input schema declares below the root's own
// properties (a nested struct's toolbelt:"path" field, files[].name, one
// behind a $ref) are found by schema.NestedPaths, the governance policy's
// walk too; when a bound cuts that walk short, a call's paths cannot all
// be known, and every deny and ask rule on paths holds (no allow rule
// approves).

// nestedValues appends the values found at segs below the object
// members fields: a property under every key a decoder may take for it
// (valuesOf), each item of a list, each value of a map. JSON null and ""
// are left out: the argument was not given.
func nestedValues(fields []member, segs []string, out []json.RawMessage) []json.RawMessage {
	var vals []json.RawMessage
	if segs[0] == schema.ValuesStep {
		for _, m := range fields {
			vals = append(vals, m.val)
		}
	} else {
		vals = valuesOf(fields, segs[0])
	}
	for _, v := range vals {
		out = valuesBelow(v, segs[1:], out)
	}
	return out
}

// valuesBelow appends the values found at segs in the JSON value v (see
// nestedValues).
func valuesBelow(v json.RawMessage, segs []string, out []json.RawMessage) []json.RawMessage {
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
				out = valuesBelow(it, segs[1:], out)
			}
		}
		return out
	}
	if fields, ok := members(v); ok {
		out = nestedValues(fields, segs, out)
	}
	return out
}
