package yamlbound

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// size counts the values of a decoded document: a map is one, and each of
// its keys and values; a list is one, and each of its items.
func size(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range x {
			n += 1 + size(e)
		}
		return n
	case map[any]any:
		n := 1
		for k, e := range x {
			n += size(k) + size(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += size(e)
		}
		return n
	}
	return 1
}

// FuzzCheck feeds Check hostile YAML (a tool spec or policy file): it
// never panics, its error is an *Error, and a document it lets through
// decodes (aliases expanded, as a loader expands them) to no more values
// than the bound.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"tools:\n  - name: x\n    input_schema: {type: object}\n",
		Bomb(2), Bomb(4), Bomb(9),
		"a: &a {x: 1}\nb: *a\nc: {<<: *a, y: 2}\n",
		"a: &a [1, 2]\nb: [*a, *a, *a]\nc: &c [*a, *a]\nd: [*c, *c, *c]\n",
		"&a [*a]\n", "*a\n", "a: &a\nb: *a\n", "? [a, b]\n: c\n", "[[[[[[[[[[[[1]]]]]]]]]]]]",
		strings.Repeat("[", 150) + strings.Repeat("]", 150),
		strings.Repeat("- ", 200) + "x\n", "--- a\n--- b\n", "!!binary aGk=\n", "\x00", "\xff: \xfe\n",
	} {
		f.Add([]byte(s))
	}
	const maxNodes, maxDepth = 2000, 30
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil {
			return
		}
		err := Check(&doc, maxNodes, maxDepth)
		if err != nil {
			var be *Error
			if !errors.As(err, &be) || be.Message == "" {
				t.Fatalf("Check(%q) = %v (%T), want an *Error with a message", data, err, err)
			}
			return
		}
		if Check(&doc, 0, 0) != nil {
			t.Fatalf("Check(%q) passes tight bounds but fails the default ones", data)
		}
		var v any
		if doc.Decode(&v) != nil {
			return
		}
		if n := size(v); n > maxNodes {
			t.Fatalf("Check(%q) let through a document of %d values (bound %d)", data, n, maxNodes)
		}
	})
}
