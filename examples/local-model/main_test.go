package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// server replays recorded chat completions of one local server, in order,
// and keeps the requests.
type server struct {
	mu     sync.Mutex
	files  []string
	bodies []map[string]any
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.bodies = append(s.bodies, body)
	n := len(s.bodies) - 1
	if n >= len(s.files) {
		http.Error(w, "no more recorded responses", http.StatusInternalServerError)
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", s.files[n]))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// The example against recorded responses of Ollama, vLLM and llama.cpp's
// server: the tool call is read, run and answered, whatever each server
// puts around it (reasoning fields, null content, timings).
func TestLocalServers(t *testing.T) {
	for _, name := range []string{"ollama", "vllm", "llamacpp"} {
		t.Run(name, func(t *testing.T) {
			s := &server{files: []string{name + "_turn1.json", name + "_turn2.json"}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			var out bytes.Buffer
			err := run(context.Background(), Config{BaseURL: srv.URL + "/v1", Model: "qwen3:8b", APIKey: "local", Question: "Weather in Lisbon?"}, &out)
			require.NoError(t, err)
			assert.Contains(t, out.String(), `call   get_weather(`)
			assert.Contains(t, out.String(), `-> {"city":"Lisbon","temp":21,"unit":"celsius","sky":"sunny"}`)
			assert.Contains(t, out.String(), "answer It is sunny in Lisbon, 21 °C.")

			s.mu.Lock()
			defer s.mu.Unlock()
			require.Len(t, s.bodies, 2)
			assert.Equal(t, "qwen3:8b", s.bodies[0]["model"])
			fn := s.bodies[0]["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
			assert.Equal(t, "get_weather", fn["name"])
			assert.Equal(t, false, fn["strict"], "local servers get non-strict schemas by default")
			msgs := s.bodies[1]["messages"].([]any)
			require.Len(t, msgs, 4)
			toolMsg := msgs[3].(map[string]any)
			assert.Equal(t, "tool", toolMsg["role"])
			call := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
			assert.Equal(t, call["id"], toolMsg["tool_call_id"])
		})
	}
}

// A server that is not there is an error naming the model and the URL.
func TestNoServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	err := run(context.Background(), Config{BaseURL: url + "/v1/", Model: "qwen3:8b", APIKey: "local", Question: "?"}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "qwen3:8b at "+url+"/v1/")
}

// A base URL http:// on another machine is refused before anything is
// sent (the key would cross the network in clear): the error says which
// flag allows it. No connection is tried (10.255.255.1 is never reached).
func TestPlainHTTPToAnotherMachineNeedsTheFlag(t *testing.T) {
	err := run(context.Background(), Config{BaseURL: "http://10.255.255.1:11434/v1/", Model: "qwen3:8b", APIKey: "local", Question: "?"}, io.Discard)
	require.Error(t, err)
	assert.ErrorIs(t, err, openai.ErrPlainHTTP)
	assert.Contains(t, err.Error(), "WithInsecureHTTP")
}

// With -prompt-tools the server gets no tools: the system message
// describes them, the reply's <tool_call> block is run, and the result
// goes back as a user message of <tool_response> blocks. The responses
// have the shape Ollama returns for a model without native tool calling.
func TestPromptTools(t *testing.T) {
	s := &server{files: []string{"ollama_prompt_turn1.json", "ollama_turn2.json"}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), Config{BaseURL: srv.URL + "/v1", Model: "gemma2:9b", APIKey: "local", Question: "Weather in Lisbon?", PromptTools: true}, &out)
	require.NoError(t, err)
	assert.Contains(t, out.String(), `call   get_weather({"city": "Lisbon", "unit": "celsius"}) -> {"city":"Lisbon","temp":21,"unit":"celsius","sky":"sunny"}`)
	assert.Contains(t, out.String(), "answer It is sunny in Lisbon, 21 °C.")

	s.mu.Lock()
	defer s.mu.Unlock()
	require.Len(t, s.bodies, 2)
	assert.NotContains(t, s.bodies[0], "tools", "no tools parameter")
	first := s.bodies[0]["messages"].([]any)
	system := first[0].(map[string]any)
	assert.Equal(t, "system", system["role"])
	assert.Contains(t, system["content"], `{"name":"get_weather","description":"Current weather for a city"`)
	msgs := s.bodies[1]["messages"].([]any)
	require.Len(t, msgs, 4)
	assert.Equal(t, "assistant", msgs[2].(map[string]any)["role"])
	last := msgs[3].(map[string]any)
	assert.Equal(t, "user", last["role"])
	assert.Equal(t, "<tool_response name=\"get_weather\">\n{\"city\":\"Lisbon\",\"temp\":21,\"unit\":\"celsius\",\"sky\":\"sunny\"}\n</tool_response>", last["content"])
}
