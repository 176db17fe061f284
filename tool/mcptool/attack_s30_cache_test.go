package mcptool

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heapInUse returns the heap in use after a collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAttackS30ListingCacheIsBounded: under MCP 2026-07-28 (which the
// SDK's own server negotiates) the SDK's client keeps every tools/list
// page it reads, keyed by cursor, for the whole session. A server that
// pages 100 tools of a 1 MiB description each left over 100 MB on the
// heap after Tools returned. A listing may now read 32 MiB of tools in
// all: past that Tools fails and the session, and the SDK's cache with
// it, is dropped.
func TestAttackS30ListingCacheIsBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, &mcp.ServerOptions{PageSize: 1})
	for i := range 100 {
		desc := fmt.Sprintf("%03d", i) + strings.Repeat("d", 1<<20)
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%03d", i), Description: desc, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	c, err := Connect(context.Background(), Transport(ct))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	before := heapInUse()
	tools, err := c.Tools(context.Background())
	after := heapInUse()
	runtime.KeepAlive(c)
	retained := int64(after) - int64(before)
	t.Logf("retained after Tools: %d bytes (%d tools, err %v)", retained, len(tools), err)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 32 MiB of tools")
	assert.Contains(t, err.Error(), "the session closed")
	assert.Less(t, retained, int64(8<<20), "heap retained after Tools returned")
	tools = nil

	// An ordinary listing under the bound is still read on the new
	// session.
	small := mcp.NewServer(&mcp.Implementation{Name: "ok", Version: "v1"}, &mcp.ServerOptions{PageSize: 1})
	for i := range 10 {
		small.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: strings.Repeat("d", 1<<20), InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	st2, ct2 := mcp.NewInMemoryTransports()
	ss2, err := small.Connect(context.Background(), st2, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss2.Close() })
	c2, err := Connect(context.Background(), Transport(ct2))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c2.Close() })
	tools, err = c2.Tools(context.Background())
	require.NoError(t, err)
	assert.Len(t, tools, 10)
}

// TestAttackS30ListingCacheOfFreshCursorsIsBounded: each listing stays
// under maxListedBytes, but the server hands out a new cursor each time,
// so the SDK's cache of pages (keyed by cursor) grows at each listing:
// 20 listings of a 4 MiB page left 97 MB on the heap (with the bound
// lifted). Past maxCachedBytes the session is closed once the listing is
// done.
func TestAttackS30ListingCacheOfFreshCursorsIsBounded(t *testing.T) {
	old := maxCachedBytes
	maxCachedBytes = 8 << 20
	t.Cleanup(func() { maxCachedBytes = old })

	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "first", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	fresh := 0
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && strings.HasPrefix(p.Cursor, "fresh") {
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: p.Cursor, Description: p.Cursor + strings.Repeat("d", 4<<20), InputSchema: map[string]any{"type": "object"}}}}, nil
			}
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				fresh++
				lr.NextCursor = fmt.Sprintf("fresh%d", fresh)
			}
			return res, err
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	c, err := Connect(context.Background(), Transport(ct))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.GreaterOrEqual(t, c.cur.cs.InitializeResult().ProtocolVersion, "2026-07-28", "the SDK's cache is kept under 2026-07-28 only")

	before := heapInUse()
	listings := 0
	for range 20 {
		tools, err := c.Tools(context.Background())
		if err != nil {
			break // the session was closed; an in-memory transport does not dial twice
		}
		require.Len(t, tools, 2)
		listings++
	}
	after := heapInUse()
	runtime.KeepAlive(c)
	retained := int64(after) - int64(before)
	t.Logf("retained after %d listings: %d bytes", listings, retained)
	assert.GreaterOrEqual(t, listings, 2)
	assert.Less(t, retained, int64(16<<20), "heap retained after the listings")
}
