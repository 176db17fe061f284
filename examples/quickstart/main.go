// Command quickstart is Toolbelt's main job in one page: it defines four
// tools from Go functions, exports their definitions for OpenAI and MCP,
// and runs calls through a governed executor — approval for anything not
// marked low-risk, a rate limit per user — printing for each result both
// what the program sees and the text the model is sent (wire.Text): a good
// call, bad arguments, an unknown tool, a timeout, a panic, a risky call a
// person refuses and a plain error from the tool.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolbelt-go/toolbelt/agent/wire"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Address is a nested struct: it is inlined into the search schema.
type Address struct {
	City    string `json:"city" jsonschema_description:"City name, e.g. Lisbon"`
	Country string `json:"country,omitempty" jsonschema:"minLength=2,maxLength=2" jsonschema_description:"ISO 3166 country code"`
}

// SearchArgs has nested, enum and optional fields.
type SearchArgs struct {
	Query string   `json:"query" jsonschema_description:"What to look for, in plain words"`
	Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50"`
	Kind  string   `json:"kind,omitempty" jsonschema:"enum=code,enum=docs"`
	Near  *Address `json:"near,omitempty"`
}

// Hit is one search result.
type Hit struct {
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

// SearchResult is the structured output of search.
type SearchResult struct {
	Hits []Hit `json:"hits"`
}

func search(_ context.Context, in SearchArgs) (SearchResult, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 2
	}
	var out SearchResult
	for i := 0; i < limit && i < 3; i++ {
		out.Hits = append(out.Hits, Hit{Title: fmt.Sprintf("%s result %d", in.Query, i+1), Score: 1 / float64(i+1)})
	}
	return out, nil
}

// SlowArgs asks for a sleep.
type SlowArgs struct {
	Seconds int `json:"seconds" jsonschema:"minimum=0,maximum=600"`
}

func slow(ctx context.Context, in SlowArgs) (string, error) {
	select {
	case <-time.After(time.Duration(in.Seconds) * time.Second):
		return "done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// DivideArgs are two numbers.
type DivideArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

func divide(_ context.Context, in DivideArgs) (int, error) {
	return in.A / in.B, nil // panics when B is 0: the executor turns it into a result
}

// NoteArgs names a note.
type NoteArgs struct {
	Title string `json:"title" jsonschema:"minLength=1"`
}

func deleteNote(_ context.Context, in NoteArgs) (string, error) {
	if in.Title == "groceries" {
		return "", fmt.Errorf("note %q is pinned: unpin it first", in.Title)
	}
	return "deleted " + in.Title, nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	reg := registry.New()
	reg.MustRegister(
		// Low risk and read-only: runs without asking anyone.
		tool.Func("search", "Search the knowledge base", search, tool.WithRisk(tool.RiskLow), tool.ReadOnly()),
		tool.Func("slow", "Wait a number of seconds", slow, tool.WithRisk(tool.RiskLow), tool.WithTimeout(200*time.Millisecond)),
		tool.Func("divide", "Divide a by b (integer division)", divide, tool.WithRisk(tool.RiskLow)),
		// High risk: a person decides every call.
		tool.Func("delete_note", "Delete a note by its title", deleteNote, tool.WithRisk(tool.RiskHigh),
			tool.WithAnnotations(tool.Annotations{Destructive: true})),
	)

	openai, err := reg.Export(registry.OpenAIChat)
	if err != nil {
		return err
	}
	mcp, err := reg.Export(registry.MCP)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "== OpenAI chat tool (strict) for search:")
	fmt.Fprintln(w, indent(openai.Tools[0]))
	fmt.Fprintln(w, "== MCP tool for search (excerpt):")
	var m map[string]any
	_ = json.Unmarshal(mcp.Tools[0], &m)
	excerpt, _ := json.MarshalIndent(map[string]any{"name": m["name"], "annotations": m["annotations"]}, "", "  ")
	fmt.Fprintln(w, string(excerpt))

	// The person who approves; a program passes approval.NewTerminal(os.Stdin,
	// os.Stderr) or an approval.Queue its UI reads. This one keeps the
	// groceries note and lets the rest go.
	person := approval.ApproverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		if strings.Contains(string(req.Call.Args), "shopping") {
			return approval.Denied("alice", "keep the shopping list"), nil
		}
		return approval.Approved("alice"), nil
	})
	gate := approvalgate.New(person, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto)))
	ex, err := executor.New(reg, executor.WithExtensions(
		ratelimit.New(ratelimit.PerPrincipal("60/minute")),
		gate, gate.Guard(),
	))
	if err != nil {
		return err
	}
	ctx = tool.WithPrincipal(ctx, tool.Principal{ID: "alice"})

	calls := []struct {
		title string
		call  tool.Call
	}{
		{"good call", tool.Call{ID: "c1", Name: "search", Args: json.RawMessage(`{"query":"sandbox","limit":2,"kind":"docs","near":{"city":"Lisbon"}}`)}},
		{"strict-mode nulls mean absent", tool.Call{ID: "c2", Name: "search", Args: json.RawMessage(`{"query":"x","limit":null,"kind":null,"near":null}`)}},
		{"bad arguments", tool.Call{ID: "c3", Name: "search", Args: json.RawMessage(`{"limit":80,"kind":"videos","near":{}}`)}},
		{"unknown tool", tool.Call{ID: "c4", Name: "serch", Args: json.RawMessage(`{"query":"x"}`)}},
		{"timeout", tool.Call{ID: "c5", Name: "slow", Args: json.RawMessage(`{"seconds":5}`)}},
		{"panic", tool.Call{ID: "c6", Name: "divide", Args: json.RawMessage(`{"a":1,"b":0}`)}},
		{"a person refuses a risky call", tool.Call{ID: "c7", Name: "delete_note", Args: json.RawMessage(`{"title":"shopping"}`)}},
		{"the tool's own error", tool.Call{ID: "c8", Name: "delete_note", Args: json.RawMessage(`{"title":"groceries"}`)}},
	}
	for _, c := range calls {
		res, _ := ex.Execute(ctx, c.call)
		fmt.Fprintf(w, "== %s: %s(%s)\n", c.title, c.call.Name, c.call.Args)
		fmt.Fprintln(w, describe(res))
		// What goes back to the model: each fact once, errors with their
		// code and retry hint.
		fmt.Fprintf(w, "   model reads: %s\n", wire.Text(res))
	}
	return nil
}

func describe(res *tool.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "   status=%s", res.Status)
	if res.Error != nil {
		fmt.Fprintf(&b, " code=%s retryable=%v\n   message: %s", res.Error.Code, res.Error.Retryable, res.Error.Message)
		if st, ok := res.Metadata["stack"].(string); ok {
			fmt.Fprintf(&b, "\n   stack: %d bytes captured in metadata", len(st))
		}
		return b.String()
	}
	if len(res.Output) > 0 {
		fmt.Fprintf(&b, " output=%s", res.Output)
	}
	if t := res.Text(); t != "" {
		fmt.Fprintf(&b, " text=%q", t)
	}
	return b.String()
}

func indent(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
