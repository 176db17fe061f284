package policy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// ff0ffc0 judges a file: URL in any argument as the local path it names,
// but read only an argument that is such a string or a list of them: a
// tool that takes its URL inside an object ({"request": {"url": ...}}, as
// HTTP request tools do) or a list of objects read /etc/shadow past
// forbidden_paths /etc/**.
func TestReviewS13FileURLInsideAnObject(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"/etc/**\"]\n"))
	require.NoError(t, err)
	spec := tool.Spec{Name: "http_request", InputSchema: json.RawMessage(`{"type":"object"}`)}
	for _, args := range []string{
		`{"request": {"method": "GET", "url": "file:///etc/shadow"}}`,
		`{"requests": [{"url": "https://example.com/"}, {"url": "FILE:/etc/shadow"}]}`,
		`{"a": {"b": [{"c": {"url": " file://localhost/etc/%73hadow"}}]}}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.Error(t, err, args)
	}
	// A value nested deep is read in one pass: 9,000 levels (under
	// encoding/json's limit) around a file: URL, in a few milliseconds.
	deep := strings.Repeat(`{"a":[`, 4500) + `"file:///etc/shadow"` + strings.Repeat(`]}`, 4500)
	_, err = p.Evaluate("", &spec, json.RawMessage(`{"x":`+deep+`}`))
	assert.Error(t, err, "a file: URL 9,000 levels down")
	for _, args := range []string{
		`{"request": {"method": "GET", "url": "https://example.com/etc/shadow"}}`,
		`{"content": {"text": "file:///etc/shadow"}}`,
	} {
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		assert.NoError(t, err, args)
	}
}

// nestedPathArgs read a schema to depth 32 and kept 256 paths, and did not
// follow $ref: a path declared past either bound, or in $defs (a list's
// item type, as generated schemas write it), was never judged, so
// forbidden_paths /etc/** let it name /etc/shadow. A $ref is followed now,
// and a schema whose paths cannot all be read (past a bound, or $refs
// that loop) has its calls refused, naming why.
func TestReviewS13NestedPathsPastTheBoundsOrBehindARef(t *testing.T) {
	p, err := policy.Parse([]byte("global:\n  forbidden_paths: [\"/etc/**\"]\n"))
	require.NoError(t, err)
	props := map[string]any{}
	for i := range 300 {
		props[fmt.Sprintf("p%03d", i)] = map[string]any{"type": "string", sandbox.PathKeyword: true}
	}
	wide, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"path":    map[string]any{"type": "string", sandbox.PathKeyword: true},
		"options": map[string]any{"type": "object", "properties": props},
	}})
	deep := `{"type":"string","x-toolbelt-path":true}`
	deepArg := `"/etc/shadow"`
	for range 40 {
		deep = `{"type":"object","properties":{"d":` + deep + `}}`
		deepArg = `{"d":` + deepArg + `}`
	}
	deep = `{"type":"object","properties":{"path":{"type":"string","x-toolbelt-path":true},"x":` + deep + `}}`
	ref := `{"type":"object","$defs":{"f":{"type":"object","properties":{"name":{"type":"string","x-toolbelt-path":true}}}},
		"properties":{"path":{"type":"string","x-toolbelt-path":true},"files":{"type":"array","items":{"$ref":"#/$defs/f"}}}}`
	eval := func(schema, args string) error {
		spec := tool.Spec{Name: "cp", InputSchema: json.RawMessage(schema)}
		_, err := p.Evaluate("", &spec, json.RawMessage(args))
		return err
	}
	var calls [][2]string
	for i := range 300 {
		calls = append(calls, [2]string{string(wide), fmt.Sprintf(`{"path":"docs/a","options":{"p%03d":"/etc/shadow"}}`, i)})
	}
	calls = append(calls,
		[2]string{deep, `{"path":"docs/a","x":` + deepArg + `}`},
		[2]string{ref, `{"path":"docs/a","files":[{"name":"/etc/shadow"}]}`})
	passed := 0
	for _, c := range calls {
		if err := eval(c[0], c[1]); err == nil {
			passed++
			if passed <= 5 {
				t.Errorf("forbidden_paths let %.80s run", c[1])
			}
		}
	}
	assert.Zero(t, passed, "calls forbidden_paths let through")
	// A $ref is followed: its path outside /etc runs.
	assert.NoError(t, eval(ref, `{"path":"docs/a","files":[{"name":"docs/b"}]}`))
	// A $ref that refers to itself twice at each level is read in bounded
	// time (every expansion would be 2^32 steps), and refused with a reason.
	loop := `{"type":"object","$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"}}}},
		"properties":{"path":{"type":"string","x-toolbelt-path":true},"n":{"$ref":"#/$defs/n"}}}`
	err = eval(loop, `{"path":"docs/a"}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot all be read")
	// A schema without paths is unaffected by the bounds.
	assert.NoError(t, eval(`{"type":"object","$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"}}}},
		"properties":{"n":{"$ref":"#/$defs/n"}}}`, `{"n":{}}`))
}
