package anthropic_test

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

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/providers/anthropic"
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

// FuzzNext reads hostile Messages API answers: Next never panics, every
// call has an id, a name and arguments, and when the body names each key
// once and in one case (so every JSON reader sees the same), the calls are
// its tool_use blocks, input exactly as sent.
func FuzzNext(f *testing.F) {
	for _, name := range []string{"turn1_tool_use.json", "turn2_answer.json", "thinking_turn1.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{"n":123456789012345678901234567890,"x":1e999}},{"type":"tool_use","id":"a","name":"f","input":null}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"","name":"f","input":{}}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"a","name":"","input":{}}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":"not an object"}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{"a":1,"a":2}}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":""}]}`,
		`{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"\u0000\ud800"},{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}`,
		`{"id":"m","type":"message","role":"assistant","content":"plain"}`, `{"id":"m","content":null}`, `{"id":"m","content":{}}`,
		`{"id":"m","content":[5]}`, `[]`, ``, `{`, "\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		client := sdk.NewClient(
			option.WithBaseURL("https://api.invalid/"),
			option.WithAPIKey("sk-test"),
			option.WithHTTPClient(&http.Client{Transport: bodyTransport{body}}),
			option.WithMaxRetries(0),
		)
		m := anthropic.New(client, "claude-sonnet-4-5")
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
		if schema.UniqueKeys(body) != nil || foldedKey(body, "content", "type", "id", "name", "input") {
			return
		}
		var ref struct {
			Content []struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			} `json:"content"`
		}
		if json.Unmarshal(body, &ref) != nil {
			return
		}
		i := 0
		for _, b := range ref.Content {
			if b.Type != "tool_use" {
				continue
			}
			if i >= len(reply.Calls) {
				t.Fatalf("%q: Next read %d calls, the message has more", body, len(reply.Calls))
			}
			c := reply.Calls[i]
			want := string(bytes.TrimSpace(b.Input))
			if want == "" || want == "null" {
				want = "{}"
			}
			if c.ID != b.ID || c.Name != b.Name || string(bytes.TrimSpace(c.Args)) != want {
				t.Fatalf("%q: call %d is %s %s(%s), the model sent %s %s(%s)", body, i, c.ID, c.Name, c.Args, b.ID, b.Name, b.Input)
			}
			i++
		}
		if i != len(reply.Calls) {
			t.Fatalf("%q: the message has %d tool_use blocks, Next read %d calls", body, i, len(reply.Calls))
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
