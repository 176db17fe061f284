package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/providers/gemini"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// opencensus (pulled in by the SDK's auth dependencies) starts a worker at
// init that never ends; it is not ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// WeatherArgs is the test tool's input; Unit is an enum-only optional
// field, as raw and MCP schemas often have.
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

// replay is a Gemini API endpoint that answers each request with the next
// recorded response and keeps the request bodies.
type replay struct {
	mu     sync.Mutex
	steps  []step
	bodies [][]byte
	paths  []string
}

type step struct {
	status int
	file   string
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rp.bodies = append(rp.bodies, raw)
	rp.paths = append(rp.paths, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
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
	w.WriteHeader(rp.steps[n].status)
	_, _ = w.Write(data)
}

func (rp *replay) request(t *testing.T, i int) (body map[string]any, raw []byte) {
	t.Helper()
	rp.mu.Lock()
	defer rp.mu.Unlock()
	require.Greater(t, len(rp.bodies), i)
	require.NoError(t, json.Unmarshal(rp.bodies[i], &body))
	return body, rp.bodies[i]
}

func newModel(t *testing.T, opts []gemini.Option, steps ...step) (*gemini.Model, *replay) {
	t.Helper()
	rp := &replay{steps: steps}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)
	return gemini.New(client, "gemini-2.5-flash", opts...), rp
}

func conversation() []agent.Message {
	return []agent.Message{
		{Role: agent.RoleSystem, Text: "You are a weather assistant."},
		{Role: agent.RoleUser, Text: "Weather in Lisbon and Atlantis?"},
	}
}

// recordedContent is the first candidate's content of a recorded response.
func recordedContent(t *testing.T, file string) any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	var resp struct {
		Candidates []struct {
			Content any `json:"content"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal(data, &resp))
	return resp.Candidates[0].Content
}

// The two-turn tool loop with thinking: the second request carries the
// model's turn exactly as it came (the thought part, the thought signature
// on the first function call, both calls), then the function responses.
func TestToolLoopSendsThoughtSignaturesBack(t *testing.T) {
	model, rp := newModel(t, []gemini.Option{gemini.WithConfig(func(c *genai.GenerateContentConfig) {
		c.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	})}, step{200, "turn1_function_call.json"}, step{200, "turn2_answer.json"})
	tr, err := agent.Run(context.Background(), model, conversation(), agent.Options{Executor: weatherExecutor(), Tools: []string{"get_weather"}})
	require.NoError(t, err)
	assert.Equal(t, agent.StopAnswered, tr.Stop)
	assert.Equal(t, "Lisbon is sunny at 21 °C. I have no weather station for Atlantis.", tr.Final)
	require.Len(t, tr.Steps, 1)
	require.Len(t, tr.Steps[0].Calls, 2)
	assert.True(t, tr.Steps[0].Results[0].OK())
	assert.Equal(t, tool.CodeNotFound, tr.Steps[0].Results[1].Error.Code)
	assert.Equal(t, "", tr.Messages[2].Text, "thoughts are not the answer's text")

	assert.Equal(t, "POST /v1beta/models/gemini-2.5-flash:generateContent?", rp.paths[0])
	first, _ := rp.request(t, 0)
	assert.Equal(t, true, first["generationConfig"].(map[string]any)["thinkingConfig"].(map[string]any)["includeThoughts"])

	second, raw := rp.request(t, 1)
	contents := second["contents"].([]any)
	require.Len(t, contents, 3)
	assert.Equal(t, recordedContent(t, "turn1_function_call.json"), contents[1], "the model's turn goes back exactly as it came")

	// The request decodes into the SDK's own types.
	var req struct {
		Contents          []*genai.Content `json:"contents"`
		SystemInstruction *genai.Content   `json:"systemInstruction"`
		Tools             []*genai.Tool    `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(raw, &req))
	assert.Equal(t, "You are a weather assistant.", req.SystemInstruction.Parts[0].Text)
	sig := req.Contents[1].Parts[1].ThoughtSignature
	assert.NotEmpty(t, sig)
	assert.True(t, req.Contents[1].Parts[0].Thought)
	resp := req.Contents[2]
	assert.Equal(t, "user", resp.Role)
	require.Len(t, resp.Parts, 2)
	fr := resp.Parts[0].FunctionResponse
	require.NotNil(t, fr)
	assert.Equal(t, "get_weather", fr.Name)
	assert.Equal(t, map[string]any{"city": "Lisbon", "temp_c": float64(21), "sky": "sunny"}, fr.Response["output"])
	// The error object says its code once, in its own field; the message
	// is the tool's message, not "error [not_found]: ...".
	assert.Equal(t, map[string]any{"code": "not_found", "message": `no weather station for "Atlantis"`},
		resp.Parts[1].FunctionResponse.Response["error"])
	assert.Equal(t, 1, strings.Count(string(raw), "not_found"), "the code is sent once")

	decl := req.Tools[0].FunctionDeclarations[0]
	assert.Equal(t, "get_weather", decl.Name)
	assert.Equal(t, genai.TypeObject, decl.Parameters.Type)
	assert.Equal(t, genai.TypeString, decl.Parameters.Properties["unit"].Type)
	assert.Equal(t, []string{"celsius", "fahrenheit"}, decl.Parameters.Properties["unit"].Enum)
}

// A candidate with no content says why, naming the finish reason.
func TestMalformedFunctionCallNamesTheReason(t *testing.T) {
	model, _ := newModel(t, nil, step{200, "malformed_function_call.json"})
	_, err := model.Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "finish reason MALFORMED_FUNCTION_CALL")
	// The SDK's Gemini API converter drops finishMessage (genai v1.77.0,
	// candidateFromMldev), so the reason is all there is to name.
	assert.NotContains(t, err.Error(), "not JSON")
}

func TestAPIErrorSaysWhatTheAPISaid(t *testing.T) {
	model, _ := newModel(t, nil, step{429, "error_429.json"})
	_, err := model.Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	var apiErr genai.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 429, apiErr.Code)
	assert.Equal(t, "RESOURCE_EXHAUSTED", apiErr.Status)
	// The API's answer is said once: its code, status and message each
	// appear a single time (the SDK's own error text repeats all three).
	msg := err.Error()
	assert.Equal(t, `gemini: generateContent with model "gemini-2.5-flash" failed: HTTP 429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota). (rate limited or out of quota: wait and retry)`, msg)
	assert.Equal(t, 1, strings.Count(msg, "429"), msg)
	assert.Equal(t, 1, strings.Count(msg, "RESOURCE_EXHAUSTED"), msg)
	assert.Equal(t, 1, strings.Count(msg, "Resource has been exhausted"), msg)

	// Details (how long to wait) are kept, once.
	model, _ = newModel(t, nil, step{429, "error_429_details.json"})
	_, err = model.Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	msg = err.Error()
	assert.Equal(t, 1, strings.Count(msg, `"retryDelay":"37s"`), msg)
	assert.Equal(t, 1, strings.Count(msg, "429"), msg)
}

// Streaming passes text as it comes and returns the whole turn, signature
// included.
func TestStreamingTextDeltas(t *testing.T) {
	var deltas []string
	model, rp := newModel(t, []gemini.Option{gemini.WithStream(func(s string) { deltas = append(deltas, s) })}, step{200, "stream_answer.sse"})
	msg, err := model.Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"Lisbon is ", "sunny at 21 °C."}, deltas)
	assert.Equal(t, "Lisbon is sunny at 21 °C.", msg.Text)
	assert.Equal(t, gemini.Format, msg.RawFormat)
	assert.Contains(t, string(msg.Raw), `"thoughtSignature":"CiQBVKhc7pN9oQ=="`)
	assert.Equal(t, "POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", rp.paths[0])
}

// A turn from another provider is rebuilt from its text and calls; the
// synthetic ids of calls Gemini sent without one are not sent back.
func TestForeignTurnIsRebuilt(t *testing.T) {
	model, _ := newModel(t, nil)
	contents, _, err := model.Request([]agent.Message{
		{Role: agent.RoleUser, Text: "hi"},
		{Role: agent.RoleAssistant, Text: "checking", RawFormat: "anthropic", Raw: json.RawMessage(`[{"type":"thinking"}]`),
			Calls: []tool.Call{{ID: "get_weather#0", Name: "get_weather", Args: json.RawMessage(`{"city":"Lisbon"}`)}, {ID: "c2", Name: "get_weather", Args: json.RawMessage(`{"city":"Oslo"}`)}}},
	}, nil)
	require.NoError(t, err)
	require.Len(t, contents, 2)
	parts := contents[1].Parts
	require.Len(t, parts, 3)
	assert.Equal(t, "checking", parts[0].Text)
	assert.Equal(t, "", parts[1].FunctionCall.ID)
	assert.Equal(t, "c2", parts[2].FunctionCall.ID)
	assert.Equal(t, map[string]any{"city": "Lisbon"}, parts[1].FunctionCall.Args)
}
