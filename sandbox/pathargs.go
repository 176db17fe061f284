package sandbox

import (
	"encoding/json"
	"slices"
	"sync"
)

// PathKeyword is the JSON Schema keyword that declares a tool argument to be
// a file path: a top-level property of the input schema (a string, or an
// array of strings) carrying "x-toolbelt-path": true. tool.Func sets it for
// fields tagged `toolbelt:"path"`; a tool with a hand-written schema writes
// it there. The policy extension and the approval rules read it to know
// which arguments to resolve with [Workspace.Resolve] before matching their
// globs, instead of guessing from argument names. Provider exports drop it.
const PathKeyword = "x-toolbelt-path"

var pathArgs struct {
	sync.RWMutex
	m map[string][]string
}

// PathArguments returns the names of the top-level arguments that the input
// schema declares as paths ([PathKeyword]), sorted; nil when it declares
// none or does not parse. Results are cached per schema, so calling it for
// every call is cheap.
func PathArguments(inputSchema json.RawMessage) []string {
	pathArgs.RLock()
	out, ok := pathArgs.m[string(inputSchema)]
	pathArgs.RUnlock()
	if ok {
		return out
	}
	var s struct {
		Properties map[string]map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(inputSchema, &s) == nil {
		for name, prop := range s.Properties {
			if v, ok := prop[PathKeyword]; ok && string(v) == "true" {
				out = append(out, name)
			}
		}
		slices.Sort(out)
	}
	pathArgs.Lock()
	if pathArgs.m == nil || len(pathArgs.m) > 4096 {
		pathArgs.m = map[string][]string{} // schemas are few; bound it anyway
	}
	pathArgs.m[string(inputSchema)] = out
	pathArgs.Unlock()
	return out
}
