// Command quickstart is Toolbelt's main job in one page: it defines three
// tools from Go functions, exports their definitions for OpenAI and MCP,
// and runs calls through the executor: a good call, bad arguments, an
// unknown tool, a timeout and a panic.
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

	"github.com/toolbelt-go/toolbelt/executor"
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

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	reg := registry.New()
	reg.MustRegister(
		tool.Func("search", "Search the knowledge base", search, tool.WithRisk(tool.RiskLow), tool.ReadOnly()),
		tool.Func("slow", "Wait a number of seconds", slow, tool.WithTimeout(200*time.Millisecond)),
		tool.Func("divide", "Divide a by b (integer division)", divide),
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

	ex := executor.New(reg)
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
	}
	for _, c := range calls {
		res, _ := ex.Execute(ctx, c.call)
		fmt.Fprintf(w, "== %s: %s(%s)\n", c.title, c.call.Name, c.call.Args)
		fmt.Fprintln(w, describe(res))
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
