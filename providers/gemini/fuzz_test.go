package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// bodyTransport answers every request with status 200 and body, as a
// hostile (or broken) API endpoint would.
type bodyTransport struct {
	body []byte
	sse  bool
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	ctype := "application/json"
	if b.sse {
		ctype = "text/event-stream"
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {ctype}},
		Body:    io.NopCloser(bytes.NewReader(b.body)),
		Request: r, ContentLength: int64(len(b.body)),
	}, nil
}

// FuzzNext reads hostile generateContent answers: Next never panics, every
// call has an id, a name and arguments, and when the body names each key
// once and in one case, the calls are the first candidate's functionCall
// parts, with the arguments the model sent (the same JSON value).
func FuzzNext(f *testing.F) {
	for _, name := range []string{"turn1_function_call.json", "turn2_answer.json", "malformed_function_call.json", "stream_answer.sse"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Ext(name) == ".sse")
	}
	for _, s := range []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"n":1.5,"s":"x","l":[true,null]}}},{"functionCall":{"id":"f#0","name":"f","args":{}}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"id":12345678901234567891}}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"","args":{}}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":null}},{"functionCall":{"name":"f"}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":"not an object"}}]}}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":null},{"text":"\u0000\ud800","thought":true}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":{"b":[1,2,{"c":null}]}}}}]}}]}`,
		`{"candidates":[{"finishReason":"SAFETY"}]}`, `{"candidates":[{"content":null,"finishReason":"STOP"}]}`,
		`{"candidates":[],"promptFeedback":{"blockReason":"OTHER"}}`, `{"candidates":[5]}`,
		`[]`, ``, `{`, "\x00",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte("data: "+s+"\n\n"), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
			APIKey:      "test-key",
			Backend:     genai.BackendGeminiAPI,
			HTTPClient:  &http.Client{Transport: bodyTransport{body, stream}},
			HTTPOptions: genai.HTTPOptions{BaseURL: "https://api.invalid/"},
		})
		if err != nil {
			t.Fatal(err)
		}
		var opts []gemini.Option
		if stream {
			opts = append(opts, gemini.WithStream(func(string) {}))
		}
		m := gemini.New(client, "gemini-2.5-flash", opts...)
		reply, err := m.Next(context.Background(), []agent.Message{{Role: agent.RoleUser, Text: "hi"}}, nil)
		if err != nil {
			return
		}
		for i, c := range reply.Calls {
			if c.ID == "" || c.Name == "" || len(c.Args) == 0 {
				t.Fatalf("%q: call %d is %+v: no id, name or arguments", body, i, c)
			}
		}
		if reply.Raw != nil && !json.Valid(reply.Raw) {
			t.Fatalf("%q: Raw %q is not JSON", body, reply.Raw)
		}
		if schema.UniqueKeys(body) != nil || foldedKey(body, "candidates", "content", "parts", "functionCall", "name", "args") {
			return
		}
		var ref struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						FunctionCall *struct {
							Name string          `json:"name"`
							Args json.RawMessage `json:"args"`
						} `json:"functionCall"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if stream || json.Unmarshal(body, &ref) != nil || len(ref.Candidates) == 0 {
			return
		}
		i := 0
		for _, p := range ref.Candidates[0].Content.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if i >= len(reply.Calls) {
				t.Fatalf("%q: Next read %d calls, the candidate has more", body, len(reply.Calls))
			}
			c := reply.Calls[i]
			sent := p.FunctionCall.Args
			if s := string(bytes.TrimSpace(sent)); s == "" || s == "null" {
				sent = json.RawMessage("{}")
			}
			// Compared as doubles: the genai SDK decodes a response into
			// float64s, so an integer past 2^53 reaches the tool rounded
			// (12345678901234567891 as 12345678901234567000), which no
			// adapter can undo: the SDK keeps no raw body.
			var want, got any
			werr, gerr := json.Unmarshal(sent, &want), json.Unmarshal(c.Args, &got)
			if c.Name != p.FunctionCall.Name || werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: call %d is %s(%s), the model sent %s(%s)", body, i, c.Name, c.Args, p.FunctionCall.Name, p.FunctionCall.Args)
			}
			i++
		}
		if i != len(reply.Calls) {
			t.Fatalf("%q: the candidate has %d function calls, Next read %d", body, i, len(reply.Calls))
		}
	})
}

// Next turns a panic of the SDK into an error (FuzzNext's null-candidate
// inputs), but a panic of the caller's own stream callback is the caller's
// and goes on.
func TestStreamCallbackPanicGoesOn(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "stream_answer.sse"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: bodyTransport{body, true}},
		HTTPOptions: genai.HTTPOptions{BaseURL: "https://api.invalid/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := gemini.New(client, "gemini-2.5-flash", gemini.WithStream(func(string) { panic("the callback's own") }))
	defer func() {
		if r := recover(); r != "the callback's own" {
			t.Fatalf("recovered %v, want the callback's panic", r)
		}
	}()
	_, err = m.Next(context.Background(), []agent.Message{{Role: agent.RoleUser, Text: "hi"}}, nil)
	t.Fatalf("Next returned (%v) instead of panicking", err)
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
