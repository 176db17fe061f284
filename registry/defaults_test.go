package registry_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A property's schema default is the value of an argument the model leaves
// out (or sends as null in strict mode): the tool runs with what the model
// was shown, not with Go's zero value or a missing placeholder. Before,
// CheckArgs passed the arguments on without it.
func TestCheckArgsFillsSchemaDefaults(t *testing.T) {
	reg := registry.New()
	run := func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }
	reg.MustRegister(tool.New("log", "Show the log", run, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{
			"count":{"type":"integer","default":20,"maximum":200},
			"ref":{"type":"string","default":"HEAD"},
			"opts":{"type":"object","properties":{"color":{"type":"boolean","default":false},"width":{"type":"integer"}}},
			"tags":{"type":"array","items":{"type":"string"},"default":["a"]},
			"plain":{"type":"string"}
		},"additionalProperties":false}`))))
	e, ok := reg.Lookup("log")
	require.True(t, ok)
	check := func(args string) map[string]any {
		out, err := e.CheckArgs(json.RawMessage(args))
		require.NoError(t, err, args)
		var m map[string]any
		require.NoError(t, json.Unmarshal(out, &m))
		return m
	}
	assert.Equal(t, map[string]any{"count": 20.0, "ref": "HEAD", "tags": []any{"a"}}, check(`{}`))
	assert.Equal(t, map[string]any{"count": 3.0, "ref": "main", "tags": []any{"a"}}, check(`{"count":3,"ref":"main"}`))
	// A null the schema does not accept (strict mode's "left out") gets the default too.
	assert.Equal(t, map[string]any{"count": 20.0, "ref": "HEAD", "tags": []any{"a"}}, check(`{"count":null}`))
	// Inside an object the model sent, that object's defaults apply.
	assert.Equal(t, map[string]any{"color": false, "width": 5.0}, check(`{"opts":{"width":5}}`)["opts"])
	// The defaults are validated as the model's values are.
	_, err := e.CheckArgs(json.RawMessage(`{"count":500}`))
	assert.ErrorContains(t, err, "count")

	// A default that breaks its own schema is refused when the tool is registered.
	err = reg.Register(tool.New("bad", "Bad default", run, tool.WithInputSchema(json.RawMessage(
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":0}}}`))))
	assert.ErrorContains(t, err, `default`)
}

// A schema that accepts any object still has its defaults filled in.
func TestCheckArgsFillsDefaultsOfAnOpenSchema(t *testing.T) {
	reg := registry.New()
	run := func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }
	reg.MustRegister(tool.New("open", "Open schema", run, tool.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"mode":{"default":"fast"}}}`))))
	e, _ := reg.Lookup("open")
	out, err := e.CheckArgs(json.RawMessage(`{"x":1}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"x":1,"mode":"fast"}`, string(out))
}

// Attack: a schema (a hostile MCP server's) whose default is a megabyte was
// registered, and the megabyte was decoded into every call's arguments that
// left it out, past the executor's argument limit, which is checked before
// defaults are filled. Defaults are bounded at registration.
func TestRegisterRefusesHugeDefaults(t *testing.T) {
	big, err := json.Marshal(strings.Repeat("x", 1<<20))
	require.NoError(t, err)
	in := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","default":` + string(big) + `}}}`)
	reg := registry.New()
	err = reg.Register(tool.New("t", "d", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }, tool.WithInputSchema(in)))
	require.Error(t, err, "a 1 MB default was registered")
	assert.ErrorContains(t, err, "defaults")
}

// CheckArgs on one entry from many goroutines: each call gets its own copy
// of the defaults, and a call's change to its arguments is not seen by the
// next.
func TestCheckArgsDefaultsConcurrent(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","default":{"k":[1,2]},"properties":{"n":{"type":"integer","default":3}}}}}`)
	reg := registry.New()
	require.NoError(t, reg.Register(tool.New("t", "d", func(context.Context, tool.Call) (*tool.Result, error) { return &tool.Result{}, nil }, tool.WithInputSchema(in))))
	e, ok := reg.Lookup("t")
	require.True(t, ok)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				out, err := e.CheckArgs(json.RawMessage(`{"o":{"m":` + strconv.Itoa(i) + `}}`))
				assert.NoError(t, err)
				assert.JSONEq(t, `{"o":{"m":`+strconv.Itoa(i)+`,"n":3}}`, string(out))
				out, err = e.CheckArgs(nil)
				assert.NoError(t, err)
				assert.JSONEq(t, `{"o":{"k":[1,2]}}`, string(out))
			}
		}()
	}
	wg.Wait()
}
