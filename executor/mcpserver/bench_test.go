package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

// The same tool three ways, over in-memory transports:
//   - SDKBaseline: a plain SDK client calling a tool added with mcp.AddTool
//     (the SDK validates input and output with its own schema).
//   - SDKClientToOurServer: a plain SDK client calling our server (our
//     executor pipeline on the server side).
//   - OurClientToOurServer: executor → mcptool → MCP → mcpserver →
//     executor → tool (our pipeline on both sides).

// benchIn has no jsonschema tags: the SDK reads that tag differently.
type benchIn struct {
	Name string `json:"name"`
}

func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	greet := func(_ context.Context, in benchIn) (greetOut, error) {
		return greetOut{Greeting: "hello " + in.Name}, nil
	}

	b.Run("SDKBaseline", func(b *testing.B) {
		s := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "v0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, _ *mcp.CallToolRequest, in benchIn) (*mcp.CallToolResult, greetOut, error) {
			out, err := greet(ctx, in)
			return nil, out, err
		})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs := sdkClient(b, ct, nil, nil)
		params := &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"ada"}`)}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
		b.StopTimer()
		_ = cs.Close()
		_ = ss.Wait()
	})

	newOurServer := func(b *testing.B) *Server {
		reg := registry.New()
		reg.MustRegister(tool.Func("greet", "Greet someone", greet))
		srv, err := New(executor.MustNew(reg))
		if err != nil {
			b.Fatal(err)
		}
		return srv
	}

	b.Run("SDKClientToOurServer", func(b *testing.B) {
		cs := sdkClient(b, serve(b, newOurServer(b)), nil, nil)
		params := &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"ada"}`)}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})

	b.Run("OurClientToOurServer", func(b *testing.B) {
		_, ex, _ := ourClient(b, newOurServer(b), mcptool.WithPrefix(""))
		call := tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"ada"}`)}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := ex.Execute(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
}
