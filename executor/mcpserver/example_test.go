package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/executor/mcpserver"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"minLength=1"`
}

type weatherOut struct {
	TempC int `json:"temp_c"`
}

// Serve a registry through an executor and call it with an MCP client (over
// in-memory transports here; ServeStdio or HTTPHandler in a real server).
func Example() {
	ctx := context.Background()
	reg := registry.New()
	reg.MustRegister(tool.Func("weather", "Current temperature in a city",
		func(_ context.Context, in weatherIn) (weatherOut, error) { return weatherOut{TempC: 21}, nil },
		tool.ReadOnly()))
	srv, err := mcpserver.New(executor.MustNew(reg))
	if err != nil {
		panic(err)
	}

	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Server().Connect(ctx, st, nil) // the server first
	if err != nil {
		panic(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Oslo"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": ""}})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// {"temp_c":21}
	// true invalid_arguments: city: length must be >= 1, got 0
}
