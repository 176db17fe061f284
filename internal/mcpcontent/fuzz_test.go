package mcpcontent

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/tool"
)

// normal drops an empty _meta and empty data, which the wire does not
// tell from none.
func normal(c tool.Content) tool.Content {
	if len(c.Meta) == 0 {
		c.Meta = nil
	}
	if len(c.Data) == 0 {
		c.Data = nil
	}
	return c
}

// FuzzFromTo reads hostile content blocks as an MCP server sends them (a
// tools/call result) and maps them with From: nothing panics, and what
// From makes goes to MCP and back, on the wire too, unchanged.
func FuzzFromTo(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"k":[1,{"a":null}]}}]}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"audio","data":"","mimeType":""}]}`,
		`{"content":[{"type":"resource_link","uri":"file:///r.txt","name":"r","title":"t","description":"d","mimeType":"text/plain","size":1234}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"body"}}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","blob":"AAEC"}}]}`,
		`{"content":[{"type":"resource"}]}`, `{"content":[{"type":"resource","resource":null}]}`,
		`{"content":[{"type":"image","data":"not base64!"}]}`, `{"content":[{"type":"text","text":"\ud800\u0000"}]}`,
		`{"content":[{"type":"tool_use","id":"x","name":"y","input":{}}]}`, `{"content":[{"type":"nope"}]}`,
		`{"content":[null]}`, `{"content":[{}]}`, `{"content":{}}`, `{"content":[{"type":"text","annotations":{"priority":1e400}}]}`,
		`{"content":[{"type":"text","text":"x","annotations":{"audience":[]}}]}`, `{"content":[{"type":"text","text":"x","annotations":{}}]}`,
		`{"content":[{"type":"text","text":"x","_meta":{}}]}`, `{"content":[{"type":"text","text":"x","_meta":null}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		for i, c := range res.Content {
			tc, ok := From(c)
			if !ok {
				continue
			}
			back := To(tc)
			if back == nil {
				t.Fatalf("block %d of %q: From gave %+v, which To maps to nil", i, data, tc)
			}
			tc = normal(tc)
			again, ok := From(back)
			again = normal(again)
			if !ok || !reflect.DeepEqual(again, tc) {
				t.Fatalf("block %d of %q: From gave %+v; To then From gave %+v (%v)", i, data, tc, again, ok)
			}
			// The wire trip: the MCP server sends it, a client reads it.
			wire, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{back}})
			if err != nil {
				t.Fatalf("block %d of %q: To gave %#v, which does not encode: %v", i, data, back, err)
			}
			var read mcp.CallToolResult
			if err := json.Unmarshal(wire, &read); err != nil || len(read.Content) != 1 {
				t.Fatalf("block %d of %q: sent as %s, which does not read back: %v", i, data, wire, err)
			}
			got, ok := From(read.Content[0])
			if got = normal(got); !ok || !reflect.DeepEqual(got, tc) {
				t.Fatalf("block %d of %q: %+v went over the wire as %s and came back as %+v (%v)", i, data, tc, wire, got, ok)
			}
		}
	})
}
