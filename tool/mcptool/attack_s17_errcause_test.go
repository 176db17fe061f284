package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A JSON-RPC error's message is cut to 4 KiB for the result's Message
// (TestServerErrorTextIsBounded), but the result kept the SDK's error as
// its cause (tool.Error.Err), with the server's whole message and data:
// 8 MiB a call, held by every result (a transcript keeps up to 640 of a
// run, the job table hundreds), past the executor's output cap, and
// printed whole by anything that logs the cause (%+v, errors.Unwrap).
// The cause keeps the code and the cut message.
func TestAttackS17JSONRPCErrorCauseIsBounded(t *testing.T) {
	big := strings.Repeat("m", 4<<20)
	data, err := json.Marshal(map[string]string{"trace": big})
	require.NoError(t, err)
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "rpc_error", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32000, Message: big, Data: data}
	})
	srv.AddTool(&mcp.Tool{Name: "rpc_args", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params " + big, Data: data}
	})
	c := connectServer(t, srv)
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))
	ex := executor.MustNew(reg, executor.WithTimeout(30*time.Second))
	for _, name := range []string{"rpc_error", "rpc_args"} {
		res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: name, Args: json.RawMessage(`{}`)})
		require.NotNil(t, res)
		require.NotNil(t, res.Error, name)
		require.NotNil(t, res.Error.Err, name)
		held := 0
		for e := error(res.Error.Err); e != nil; e = errors.Unwrap(e) {
			held += len(e.Error())
			var je *jsonrpc.Error
			if errors.As(e, &je) {
				held += len(je.Data)
			}
		}
		assert.Less(t, held, 64<<10, "%s: the result's cause holds %d bytes of the server's", name, held)
		var je *jsonrpc.Error
		require.True(t, errors.As(res.Error.Err, &je), "%s: the cause is still the JSON-RPC error", name)
		assert.Equal(t, map[string]int64{"rpc_error": -32000, "rpc_args": jsonrpc.CodeInvalidParams}[name], je.Code)
	}
}
