package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/providers/openai"
	"github.com/toolbelt-go/toolbelt/tool"
)

// bodyTransport answers every request with status 200 and body, as a
// hostile (or broken) API endpoint would.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(b.body)),
		Request: r, ContentLength: int64(len(b.body)),
	}, nil
}

func fuzzClient(body []byte) sdk.Client {
	return sdk.NewClient(
		option.WithBaseURL("https://api.invalid/v1/"),
		option.WithAPIKey("sk-test"),
		option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}),
		option.WithMaxRetries(0),
	)
}

func addSeeds(f *testing.F, files []string, extra ...string) {
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkCalls holds for the calls of any reply Next returns: each has an id
// and a name, and arguments.
func checkCalls(t *testing.T, body []byte, calls []tool.Call) {
	t.Helper()
	for i, c := range calls {
		if c.ID == "" || c.Name == "" || len(c.Args) == 0 {
			t.Fatalf("%q: call %d is %+v: no id, name or arguments", body, i, c)
		}
	}
}

// sameArgs reports whether a call's arguments are what the model sent as
// its arguments string (blank is "{}").
func sameArgs(c tool.Call, sent string) bool {
	if strings.TrimSpace(sent) == "" {
		return string(c.Args) == "{}"
	}
	return string(c.Args) == sent
}

// FuzzChatNext reads hostile chat completions: Next never panics, every
// call has an id, a name and arguments, and when the body names each key
// once and in one case (so every JSON reader sees the same), the calls are
// the message's function tool calls, arguments exactly as sent.
func FuzzChatNext(f *testing.F) {
	addSeeds(f, []string{"turn1_tool_calls.json", "turn2_answer.json", "custom_tool_call.json"},
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"not json"}},{"id":"a","type":"function","function":{"name":"f","arguments":"{\"n\":1e999999}"}}]}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"","arguments":""}}]}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"   "}}]}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"a\":1,\"a\":2}"}}]}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":null,"content":"\u0000\ud800"}}]}`,
		`{"id":"x","choices":[{"message":5}]}`, `{"id":"x","choices":[]}`, `{"choices":null}`, `[]`, ``, `{`, "\x00",
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":{"id":"a"}}}]}`,
		`{"id":"x","choices":[{"message":{"role":"assistant","tool_calls":[{"id":1,"type":"function","function":{"name":"f","arguments":{}}}]}}]}`,
	)
	f.Fuzz(func(t *testing.T, body []byte) {
		m := openai.New(fuzzClient(body), "gpt-4.1")
		reply, err := m.Next(context.Background(), []agent.Message{{Role: agent.RoleUser, Text: "hi"}}, nil)
		if err != nil {
			return
		}
		checkCalls(t, body, reply.Calls)
		if reply.Raw != nil && !json.Valid(reply.Raw) {
			t.Fatalf("%q: Raw %q is not JSON", body, reply.Raw)
		}
		if schema.UniqueKeys(body) != nil || foldedKey(body, "choices", "message", "tool_calls", "id", "type", "function", "name", "arguments", "output", "call_id") {
			return
		}
		var ref struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(body, &ref) != nil || len(ref.Choices) == 0 {
			return
		}
		sent := ref.Choices[0].Message.ToolCalls
		if len(sent) != len(reply.Calls) {
			t.Fatalf("%q: the message has %d tool calls, Next read %d: %+v", body, len(sent), len(reply.Calls), reply.Calls)
		}
		for i, s := range sent {
			c := reply.Calls[i]
			if c.ID != s.ID {
				t.Fatalf("%q: call %d has id %q, the model sent %q", body, i, c.ID, s.ID)
			}
			if (s.Type == "" || s.Type == "function") && (c.Name != s.Function.Name || !sameArgs(c, s.Function.Arguments)) {
				t.Fatalf("%q: call %d is %s(%s), the model sent %s(%s)", body, i, c.Name, c.Args, s.Function.Name, s.Function.Arguments)
			}
		}
	})
}

// FuzzResponsesNext is FuzzChatNext for the Responses API: the calls are
// the response's function_call items, arguments exactly as sent.
func FuzzResponsesNext(f *testing.F) {
	addSeeds(f, []string{"responses_turn1.json", "responses_turn2.json"},
		`{"id":"r","status":"completed","output":[{"type":"function_call","call_id":"a","name":"f","arguments":"not json"},{"type":"function_call","call_id":"a","name":"f","arguments":""}]}`,
		`{"id":"r","status":"completed","output":[{"type":"function_call","call_id":"","name":"f","arguments":"{}"}]}`,
		`{"id":"r","status":"completed","output":[{"type":"","call_id":"a"}]}`,
		`{"id":"r","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"\ud800"}]},{"type":"mcp_call"}]}`,
		`{"id":"r","status":"failed","error":{"code":"x","message":"y"},"output":[]}`,
		`{"id":"r","status":"completed","output":[5]}`, `{"id":"r","output":null}`, `{"id":"r","output":{}}`, `[]`, ``, "\x00",
		`{"id":"r","status":"completed","output":[{"type":"function_call","call_id":"a","name":"f","arguments":"{\"a\":1,\"a\":2}"}]}`,
	)
	f.Fuzz(func(t *testing.T, body []byte) {
		m := openai.NewResponses(fuzzClient(body), "gpt-5")
		reply, err := m.Next(context.Background(), []agent.Message{{Role: agent.RoleUser, Text: "hi"}}, nil)
		if err != nil {
			return
		}
		checkCalls(t, body, reply.Calls)
		if schema.UniqueKeys(body) != nil || foldedKey(body, "choices", "message", "tool_calls", "id", "type", "function", "name", "arguments", "output", "call_id") {
			return
		}
		var ref struct {
			Output []json.RawMessage `json:"output"`
		}
		if json.Unmarshal(body, &ref) != nil {
			return
		}
		var sent []struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		for _, raw := range ref.Output {
			var it struct {
				Type      string `json:"type"`
				CallID    string `json:"call_id"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			}
			if json.Unmarshal(raw, &it) == nil && it.Type == "function_call" {
				sent = append(sent, it)
			}
		}
		if len(sent) != len(reply.Calls) {
			t.Fatalf("%q: the response has %d function calls, Next read %d: %+v", body, len(sent), len(reply.Calls), reply.Calls)
		}
		for i, s := range sent {
			if c := reply.Calls[i]; c.ID != s.CallID || c.Name != s.Name || !sameArgs(c, s.Arguments) {
				t.Fatalf("%q: call %d is %+v, the model sent %+v", body, i, c, s)
			}
		}
	})
}

// foldedKey reports whether body has an object key that is one of names
// only in another case ("Message", "TOOL_CALLS"): encoding/json reads it
// as the field, the SDK does not, so readers disagree and the reference
// check does not apply (as with a duplicate key).
func foldedKey(body []byte, names ...string) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k, ok := tok.(string)
		if !ok {
			continue
		}
		for _, n := range names {
			if k != n && strings.EqualFold(k, n) {
				return true
			}
		}
	}
}
