package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// The bound on a message's objects and arrays (9114978) counted no other
// value, and the SDK decodes a number, a string, true or null as any for
// 110 to 170 bytes, a member of an object for some 430: a
// structuredContent of 3 MiB of "1" elements (or of "null", "\"\"", or of
// members with keys of their own), not one object or array among them,
// had the client allocate 105-205 MB (33-65 times its size, as much as
// the "{}" elements that bound refuses; 16 MiB: some 900 MB) and the call
// succeed. A message of more than 524,288 values (commas and colons
// outside strings) is refused too.
func TestAttackS30ReviewStructuredContentOfManyValuesIsRefused(t *testing.T) {
	const size = 3 << 20
	items := func(item string) json.RawMessage {
		n := size / (len(item) + 1)
		return json.RawMessage("[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]")
	}
	var members strings.Builder
	members.WriteString("{")
	for i := 0; members.Len() < size; i++ {
		if i > 0 {
			members.WriteString(",")
		}
		fmt.Fprintf(&members, `"%x":0`, i)
	}
	members.WriteString("}")
	for name, body := range map[string]json.RawMessage{
		"numbers": items("1"),
		"nulls":   items("null"),
		"strings": items(`""`),
		"members": json.RawMessage(members.String()),
	} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "bomb", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]json.RawMessage{"a": body}}, nil
		})
		for transport, connect := range map[string]func() *Client{
			"in-memory": func() *Client { return connectServer(t, srv) },
			"http json": func() *Client {
				c, err := Connect(context.Background(), httpServer(t, srv, false))
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				return c
			},
			"http stream": func() *Client {
				c, err := Connect(context.Background(), httpServer(t, srv, true))
				require.NoError(t, err)
				t.Cleanup(func() { _ = c.Close() })
				return c
			},
		} {
			t.Run(name+", "+transport, func(t *testing.T) {
				tl, err := connect().Tool("bomb", tool.Spec{Name: "bomb", Description: "d"})
				require.NoError(t, err)
				var res *tool.Result
				alloc := allocated(func() {
					res, err = tl.Run(context.Background(), tool.Call{ID: "c1", Name: "bomb", Args: json.RawMessage(`{}`)})
				})
				t.Logf("allocated %d bytes for a %d-byte structuredContent (err %v)", alloc, len(body), err)
				if err == nil && res.Error != nil {
					err = res.Error
				}
				require.Error(t, err, "the call fails")
				if transport != "http stream" { // the SDK's error for a broken stream does not quote the cause
					assert.Contains(t, err.Error(), "more than 524288 values")
				}
				assert.Less(t, alloc, uint64(24*len(body)), "allocated %d bytes", alloc)
			})
		}
	}
}

// A page of 1,000 tools of ordinary schemas (40 described properties
// each, some 4 MiB) is under both bounds, and read.
func TestListingOfAThousandToolsOfOrdinarySchemasIsRead(t *testing.T) {
	var props []string
	for i := range 40 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","description":"the %d-th {parameter} [of] \"this\" tool, a: b, c"}`, i, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p0"]}`
	var entries []string
	for i := range maxListing {
		entries = append(entries, fmt.Sprintf(`{"name":"t%d","description":"Tool %d.","inputSchema":%s}`, i, i, schema))
	}
	page := json.RawMessage(`{"tools":[` + strings.Join(entries, ",") + `]}`)
	var c elementCount
	c.add(page)
	t.Logf("%d bytes, %d objects and arrays, %d values", len(page), c.n, c.values)
	assert.True(t, countElements(page), "the page is under both bounds")
	// The whole listing is read over HTTP (its wire watch sees every
	// byte); a thousand tools are registered in some seconds, so the
	// other transports are left to TestListingOfAThousandToolsIsRead.
	cl, err := Connect(context.Background(), httpListing(t, page, true))
	require.NoError(t, err)
	defer cl.Close()
	tools, err := cl.Tools(context.Background())
	require.NoError(t, err)
	assert.Len(t, tools, maxListing)
}

func TestValueCount(t *testing.T) {
	for _, tc := range []struct {
		text   string
		values int
	}{
		{`[1,2,3]`, 2},
		{`{"a":1,"b":[1,2]}`, 4},
		{`["a,b:c","\",:"]`, 1},
		{"event: message\ndata: [1,\"\n2]\n\n", 3}, // a quote on another line hides nothing
	} {
		var c elementCount
		c.add([]byte(tc.text))
		assert.Equal(t, tc.values, c.values, tc.text)
	}
}

// A message of values under the bound passes: a structuredContent of
// 524,188 numbers (1 MiB, the executor's default output cap), over each
// transport.
func TestStructuredContentUnderTheValueBoundPasses(t *testing.T) {
	n := maxMessageValues - 100
	body := json.RawMessage("[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]")
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "big", Description: "d", InputSchema: openObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]json.RawMessage{"a": body}}, nil
	})
	targets := map[string]*Client{"in-memory": connectServer(t, srv)}
	for name, stream := range map[string]bool{"http json": false, "http stream": true} {
		c, err := Connect(context.Background(), httpServer(t, srv, stream))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		targets[name] = c
	}
	for name, c := range targets {
		t.Run(name, func(t *testing.T) {
			tl, err := c.Tool("big", tool.Spec{Name: "big", Description: "d"})
			require.NoError(t, err)
			res, err := tl.Run(context.Background(), tool.Call{ID: "c1", Name: "big", Args: json.RawMessage(`{}`)})
			require.NoError(t, err)
			require.Nil(t, res.Error)
			var out struct{ A []any }
			require.NoError(t, json.Unmarshal(res.Output, &out))
			assert.Len(t, out.A, n)
		})
	}
}
