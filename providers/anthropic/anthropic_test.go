package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// WeatherArgs is the input of the test tool; Unit is optional, so the
// strict export sends it as required and nullable.
type WeatherArgs struct {
	City string  `json:"city" jsonschema_description:"City name"`
	Unit *string `json:"unit,omitempty" jsonschema:"enum=celsius,enum=fahrenheit"`
}

// Weather is the tool's output.
type Weather struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
	Sky   string `json:"sky"`
}

func weatherExecutor() *executor.Executor {
	reg := registry.New()
	reg.MustRegister(tool.Func("get_weather", "Current weather for a city", func(_ context.Context, in WeatherArgs) (Weather, error) {
		if in.City != "Lisbon" {
			return Weather{}, tool.Errorf(tool.CodeNotFound, "no weather station for %q", in.City)
		}
		return Weather{City: in.City, TempC: 21, Sky: "sunny"}, nil
	}, tool.ReadOnly()))
	return executor.MustNew(reg)
}

// replay is a fake Anthropic endpoint: it answers each request with the next
// recorded response and keeps the request bodies.
type replay struct {
	t       *testing.T
	mu      sync.Mutex
	steps   []step
	bodies  []map[string]any
	headers []http.Header
}

type step struct {
	status int
	file   string
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rp.bodies = append(rp.bodies, body)
	rp.headers = append(rp.headers, r.Header.Clone())
	n := len(rp.bodies) - 1
	if n >= len(rp.steps) {
		http.Error(w, "no more recorded responses", http.StatusInternalServerError)
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", rp.steps[n].file))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if strings.HasSuffix(rp.steps[n].file, ".sse") {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.Header().Set("x-request-id", "req_test")
	w.WriteHeader(rp.steps[n].status)
	_, _ = w.Write(data)
}

func (rp *replay) requests() []map[string]any {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.bodies
}

func newModel(t *testing.T, steps ...step) (*anthropic.Model, *replay) {
	t.Helper()
	return newModelWith(t, nil, steps...)
}

func newModelWith(t *testing.T, opts []anthropic.Option, steps ...step) (*anthropic.Model, *replay) {
	t.Helper()
	rp := &replay{t: t, steps: steps}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	client := sdk.NewClient(
		option.WithBaseURL(srv.URL+"/"),
		option.WithAPIKey("sk-test"),
		option.WithHTTPClient(srv.Client()),
		option.WithMaxRetries(0),
	)
	return anthropic.New(client, "claude-sonnet-4-5", append([]anthropic.Option{anthropic.WithMaxTokens(1024)}, opts...)...), rp
}

func conversation() []agent.Message {
	return []agent.Message{
		{Role: agent.RoleSystem, Text: "You are a weather assistant."},
		{Role: agent.RoleUser, Text: "Weather in Lisbon and Atlantis?"},
	}
}

// path walks a decoded JSON value by object keys and array indexes.
func path(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.Truef(t, ok, "want an object at %q, got %T", k, v)
			v = m[k]
		case int:
			a, ok := v.([]any)
			require.Truef(t, ok, "want an array at [%d], got %T", k, v)
			require.Greaterf(t, len(a), k, "array too short for [%d]", k)
			v = a[k]
		}
	}
	return v
}

func TestTwoTurnConversation(t *testing.T) {
	model, rp := newModel(t, step{200, "turn1_tool_use.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{
		Executor: weatherExecutor(),
		Tools:    []string{"get_weather"},
	})
	require.NoError(t, err)

	assert.Equal(t, agent.StopAnswered, tr.Stop)
	assert.Equal(t, "Lisbon is 21°C and sunny. There is no weather station for Atlantis.", tr.Final)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Calls, 2)
	assert.Equal(t, "toolu_01A09q90qw90lq917835lq9", tr.Steps[0].Calls[0].ID)
	assert.JSONEq(t, `{"city":"Lisbon","unit":"celsius"}`, string(tr.Steps[0].Calls[0].Args))
	assert.Equal(t, "I'll check the weather in both cities.", tr.Messages[2].Text, "text next to tool_use blocks is kept")
	assert.Equal(t, tool.StatusSucceeded, tr.Steps[0].Results[0].Status)
	require.NotNil(t, tr.Steps[0].Results[1].Error)
	assert.Equal(t, tool.CodeNotFound, tr.Steps[0].Results[1].Error.Code)

	reqs := rp.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "sk-test", rp.headers[0].Get("X-Api-Key"))
	assert.NotEmpty(t, rp.headers[0].Get("Anthropic-Version"))

	// Turn 1: system prompt apart, the user turn, the declared tool.
	first := reqs[0]
	assert.Equal(t, "claude-sonnet-4-5", first["model"])
	assert.EqualValues(t, 1024, first["max_tokens"])
	assert.Equal(t, "You are a weather assistant.", path(t, first, "system", 0, "text"))
	require.Len(t, first["messages"], 1)
	assert.Equal(t, "user", path(t, first, "messages", 0, "role"))
	assert.Equal(t, "Weather in Lisbon and Atlantis?", path(t, first, "messages", 0, "content", 0, "text"))
	require.Len(t, first["tools"], 1)
	assert.Equal(t, "get_weather", path(t, first, "tools", 0, "name"))
	assert.Equal(t, "Current weather for a city", path(t, first, "tools", 0, "description"))
	assert.Equal(t, "object", path(t, first, "tools", 0, "input_schema", "type"))
	assert.Equal(t, []any{"city"}, path(t, first, "tools", 0, "input_schema", "required"))
	assert.Equal(t, []any{"celsius", "fahrenheit"}, path(t, first, "tools", 0, "input_schema", "properties", "unit", "enum"))
	assert.Equal(t, false, path(t, first, "tools", 0, "input_schema", "additionalProperties"),
		"keywords beside properties and required are sent too")

	// Turn 2: the assistant turn echoed with its tool_use blocks, then one
	// user message of tool_result blocks with matching ids and is_error.
	second := reqs[1]
	msgs, ok := second["messages"].([]any)
	require.True(t, ok)
	require.Len(t, msgs, 3)
	assert.Equal(t, "assistant", path(t, msgs, 1, "role"))
	assert.Equal(t, "text", path(t, msgs, 1, "content", 0, "type"))
	assert.Equal(t, "tool_use", path(t, msgs, 1, "content", 1, "type"))
	assert.Equal(t, "toolu_01A09q90qw90lq917835lq9", path(t, msgs, 1, "content", 1, "id"))
	assert.Equal(t, map[string]any{"city": "Atlantis"}, path(t, msgs, 1, "content", 2, "input"))

	assert.Equal(t, "user", path(t, msgs, 2, "role"))
	ok1 := path(t, msgs, 2, "content", 0)
	assert.Equal(t, "tool_result", path(t, ok1, "type"))
	assert.Equal(t, "toolu_01A09q90qw90lq917835lq9", path(t, ok1, "tool_use_id"))
	assert.Equal(t, false, path(t, ok1, "is_error"))
	assert.JSONEq(t, `{"city":"Lisbon","temp_c":21,"sky":"sunny"}`, path(t, ok1, "content", 0, "text").(string))

	bad := path(t, msgs, 2, "content", 1)
	assert.Equal(t, "toolu_01Bq7rT3kZ8mW2vN5xYc4pLs", path(t, bad, "tool_use_id"))
	assert.Equal(t, true, path(t, bad, "is_error"))
	assert.Equal(t, `error [not_found]: no weather station for "Atlantis"`, path(t, bad, "content", 0, "text"))
}

func TestAPIErrorsAreClear(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		file   string
		want   []string
	}{
		{"rate limited", http.StatusTooManyRequests, "error_429.json",
			[]string{`HTTP 429`, `type "rate_limit_error"`, `would exceed the rate limit`, `rate limited: the SDK's retries are spent`, `(request id req_011CUJz5q7m3D4xW8bN2vK9p)`}},
		{"bad request", http.StatusBadRequest, "error_400.json",
			[]string{`HTTP 400`, `type "invalid_request_error"`, `input_schema: JSON schema is invalid`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model, rp := newModel(t, step{tc.status, tc.file})
			tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{
				Executor: weatherExecutor(),
				Tools:    []string{"get_weather"},
			})
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
				// Each fact once: the SDK's own text repeats the status
				// (and, for some SDKs, the whole body), so it is not printed.
				assert.Equal(t, 1, strings.Count(err.Error(), w), "%q said more than once in %s", w, err)
			}
			assert.Equal(t, 1, strings.Count(err.Error(), strconv.Itoa(tc.status)), err.Error())
			var apiErr *sdk.Error
			require.True(t, errors.As(err, &apiErr), "the SDK's error stays reachable with errors.As")
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, agent.StopModelError, tr.Stop)
			assert.Len(t, rp.requests(), 1)
		})
	}
}

func TestBadConversationIsAnError(t *testing.T) {
	model := anthropic.New(sdk.NewClient(option.WithAPIKey("unused")), "claude-sonnet-4-5")
	for _, tc := range []struct {
		name string
		msg  agent.Message
		want string
	}{
		{"unknown role", agent.Message{Role: "robot", Text: "hi"}, `message #0 (robot): unknown role "robot"`},
		{"result without id", agent.Message{Role: agent.RoleTool, Results: []*tool.Result{{Tool: "get_weather"}}}, `result #0 has no call id`},
		{"call without id", agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{{Name: "get_weather"}}}, `tool call to "get_weather" has no id`},
		{"empty assistant", agent.Message{Role: agent.RoleAssistant}, `neither text nor tool calls`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.Next(context.Background(), []agent.Message{tc.msg}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The two-turn tool loop with thinking enabled: the second request carries
// the first reply's content blocks exactly (thinking with its signature,
// redacted_thinking, the server tool's use and result, both tool_use
// blocks), then the tool results.
func TestThinkingToolLoopSendsBlocksBackExactly(t *testing.T) {
	model, rp := newModelWith(t, []anthropic.Option{anthropic.WithMaxTokens(16000), anthropic.WithParams(func(p *sdk.MessageNewParams) {
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(10000)
	})}, step{200, "thinking_turn1.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{Executor: weatherExecutor(), Tools: []string{"get_weather"}})
	require.NoError(t, err)
	assert.Equal(t, agent.StopAnswered, tr.Stop)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Calls, 2, "the server tool's blocks do not hide the calls")

	reqs := rp.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "enabled", path(t, reqs[0], "thinking", "type"))
	data, err := os.ReadFile(filepath.Join("testdata", "thinking_turn1.json"))
	require.NoError(t, err)
	var recorded map[string]any
	require.NoError(t, json.Unmarshal(data, &recorded))
	assert.Equal(t, "assistant", path(t, reqs[1], "messages", 1, "role"))
	assert.Equal(t, recorded["content"], path(t, reqs[1], "messages", 1, "content"), "the reply's blocks go back exactly")

	// The blocks decode into the SDK's own types, signatures intact.
	raw, err := json.Marshal(path(t, reqs[1], "messages", 1, "content"))
	require.NoError(t, err)
	var blocks []sdk.ContentBlockUnion
	require.NoError(t, json.Unmarshal(raw, &blocks))
	require.Len(t, blocks, 6)
	assert.Equal(t, "thinking", blocks[0].Type)
	assert.True(t, strings.HasPrefix(blocks[0].Signature, "EqQBCgIYAhIM"))
	assert.Equal(t, "redacted_thinking", blocks[1].Type)
	assert.NotEmpty(t, blocks[1].Data)
	assert.Equal(t, "web_fetch_tool_result", blocks[3].Type)
	assert.Equal(t, "toolu_01A09q90qw90lq917835lq9", blocks[4].ID)

	results := path(t, reqs[1], "messages", 2, "content").([]any)
	require.Len(t, results, 2)
	assert.Equal(t, "toolu_01A09q90qw90lq917835lq9", path(t, results, 0, "tool_use_id"))
	assert.Equal(t, true, path(t, results, 1, "is_error"))
}

// Streaming passes text deltas on as they come (not the thinking) and
// returns the whole turn, its thinking block and signature included.
func TestStreamingTextDeltas(t *testing.T) {
	var deltas []string
	model, rp := newModelWith(t, []anthropic.Option{anthropic.WithStream(func(s string) { deltas = append(deltas, s) })}, step{200, "stream_answer.sse"})
	msg, err := model.Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Lisbon is 21°C ", "and sunny."}, deltas)
	assert.Equal(t, "Lisbon is 21°C and sunny.", msg.Text)
	assert.Equal(t, anthropic.Format, msg.RawFormat)
	var blocks []sdk.ContentBlockUnion
	require.NoError(t, json.Unmarshal(msg.Raw, &blocks))
	require.Len(t, blocks, 2)
	assert.Equal(t, "Both results are in.", blocks[0].Thinking)
	assert.Equal(t, "EqQBCgIYAhIMstream", blocks[0].Signature)
	assert.Equal(t, true, rp.requests()[0]["stream"])
}
