package mcptool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// Register the tools of an MCP server (here one built with the SDK, over
// in-memory transports; in practice mcptool.Stdio or mcptool.HTTP) and call
// one through the executor.
func Example() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil) // the server first
	if err != nil {
		panic(err)
	}
	defer ss.Wait()

	c, err := mcptool.Connect(ctx, mcptool.Transport(ct), mcptool.WithPrefix("calc_"))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	tools, err := c.Tools(ctx)
	if err != nil {
		panic(err)
	}
	reg := registry.New()
	reg.MustRegister(tools...)

	ex := executor.MustNew(reg)
	res, err := ex.Execute(ctx, tool.Call{ID: "1", Name: "calc_add", Args: json.RawMessage(`{"a":2,"b":3}`)})
	fmt.Println(res.Status, string(res.Output), err)
	// Output: succeeded {"sum":5} <nil>
}
