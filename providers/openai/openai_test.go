package openai_test

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

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/providers/openai"
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

// replay is a fake OpenAI endpoint: it answers each request with the next
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
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/v1/responses") {
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

func newModel(t *testing.T, steps ...step) (*openai.Model, *replay) {
	t.Helper()
	client, rp := newClient(t, steps...)
	return openai.New(client, "gpt-4.1"), rp
}

func newClient(t *testing.T, steps ...step) (sdk.Client, *replay) {
	t.Helper()
	rp := &replay{t: t, steps: steps}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	client := sdk.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"),
		option.WithAPIKey("sk-test"),
		option.WithHTTPClient(srv.Client()),
		option.WithMaxRetries(0),
	)
	return client, rp
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
	model, rp := newModel(t, step{200, "turn1_tool_calls.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{
		Executor: weatherExecutor(),
		Tools:    []string{"get_weather"},
	})
	require.NoError(t, err)

	assert.Equal(t, agent.StopAnswered, tr.Stop)
	assert.Equal(t, "Lisbon is 21°C and sunny. I could not find a weather station for Atlantis.", tr.Final)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Calls, 2)
	assert.Equal(t, "call_Xa8fQ2mZkL0vR7tYc3Hn1DwE", tr.Steps[0].Calls[0].ID)
	assert.JSONEq(t, `{"city":"Lisbon","unit":"celsius"}`, string(tr.Steps[0].Calls[0].Args))
	assert.Equal(t, tool.StatusSucceeded, tr.Steps[0].Results[0].Status)
	require.NotNil(t, tr.Steps[0].Results[1].Error)
	assert.Equal(t, tool.CodeNotFound, tr.Steps[0].Results[1].Error.Code)

	reqs := rp.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer sk-test", rp.headers[0].Get("Authorization"))

	// Turn 1: the conversation and the declared tool, strict.
	first := reqs[0]
	assert.Equal(t, "gpt-4.1", first["model"])
	assert.Equal(t, "system", path(t, first, "messages", 0, "role"))
	assert.Equal(t, "Weather in Lisbon and Atlantis?", path(t, first, "messages", 1, "content"))
	require.Len(t, first["tools"], 1)
	assert.Equal(t, "function", path(t, first, "tools", 0, "type"))
	assert.Equal(t, "get_weather", path(t, first, "tools", 0, "function", "name"))
	assert.Equal(t, true, path(t, first, "tools", 0, "function", "strict"))
	assert.ElementsMatch(t, []any{"city", "unit"}, path(t, first, "tools", 0, "function", "parameters", "required"),
		"strict mode lists every property as required")
	assert.Equal(t, false, path(t, first, "tools", 0, "function", "parameters", "additionalProperties"))
	assert.Contains(t, path(t, first, "tools", 0, "function", "parameters", "properties", "unit", "type"), "null",
		"an optional field is nullable in strict mode")

	// Turn 2: the assistant's calls echoed, then one tool message per call
	// with the matching tool_call_id.
	second := reqs[1]
	msgs, ok := second["messages"].([]any)
	require.True(t, ok)
	require.Len(t, msgs, 5)
	assert.Equal(t, "assistant", path(t, msgs, 2, "role"))
	assert.Equal(t, "call_Xa8fQ2mZkL0vR7tYc3Hn1DwE", path(t, msgs, 2, "tool_calls", 0, "id"))
	assert.Equal(t, "get_weather", path(t, msgs, 2, "tool_calls", 1, "function", "name"))
	assert.JSONEq(t, `{"city":"Atlantis","unit":null}`, path(t, msgs, 2, "tool_calls", 1, "function", "arguments").(string))

	assert.Equal(t, "tool", path(t, msgs, 3, "role"))
	assert.Equal(t, "call_Xa8fQ2mZkL0vR7tYc3Hn1DwE", path(t, msgs, 3, "tool_call_id"))
	assert.JSONEq(t, `{"city":"Lisbon","temp_c":21,"sky":"sunny"}`, path(t, msgs, 3, "content").(string))

	assert.Equal(t, "tool", path(t, msgs, 4, "role"))
	assert.Equal(t, "call_9pTmB4sWq6KjN2eUv8YhZ5rA", path(t, msgs, 4, "tool_call_id"))
	assert.Equal(t, `error [not_found]: no weather station for "Atlantis"`, path(t, msgs, 4, "content"))
}

func TestAPIErrorsAreClear(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		file   string
		want   []string
	}{
		{"rate limited", http.StatusTooManyRequests, "error_429.json",
			[]string{`HTTP 429`, `code "rate_limit_exceeded"`, `Rate limit reached for gpt-4.1`, `rate limited or out of quota`}},
		{"bad request", http.StatusBadRequest, "error_400.json",
			[]string{`HTTP 400`, `type "invalid_request_error"`, `code "invalid_function_parameters"`, `Invalid schema for function 'get_weather'`}},
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

func TestNonStrictSendsSchemaAsIs(t *testing.T) {
	model := openai.New(sdk.NewClient(option.WithAPIKey("unused")), "gpt-4.1", openai.NonStrict())
	spec := weatherExecutor().Registry().List(registry.Filter{})
	params, err := model.Request(conversation(), spec)
	require.NoError(t, err)
	raw, err := json.Marshal(params)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body))
	assert.Equal(t, false, path(t, body, "tools", 0, "function", "strict"))
	assert.Equal(t, []any{"city"}, path(t, body, "tools", 0, "function", "parameters", "required"))
}

func TestBadConversationIsAnError(t *testing.T) {
	model := openai.New(sdk.NewClient(option.WithAPIKey("unused")), "gpt-4.1")
	for _, tc := range []struct {
		name string
		msg  agent.Message
		want string
	}{
		{"unknown role", agent.Message{Role: "robot", Text: "hi"}, `message #0 (robot): unknown role "robot"`},
		{"result without id", agent.Message{Role: agent.RoleTool, Results: []*tool.Result{{Tool: "get_weather"}}}, `result #0 has no call id`},
		{"call without id", agent.Message{Role: agent.RoleAssistant, Calls: []tool.Call{{Name: "get_weather"}}}, `tool call to "get_weather" has no id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.Next(context.Background(), []agent.Message{tc.msg}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
