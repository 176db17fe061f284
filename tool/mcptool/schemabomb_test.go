package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fanOutSchema is an object schema of about 40 bytes a level whose levels
// each refer to the next one twice: small and shallow as written (levels
// definitions, 3 objects each), 2^levels schemas once its $refs are
// followed.
func fanOutSchema(levels int, kw string) json.RawMessage {
	defs := make([]string, 0, levels+1)
	for i := 0; i < levels; i++ {
		next := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i+1)
		switch kw {
		case "allOf":
			defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[%s,%s]}`, i, next, next))
		case "anchor":
			defs = append(defs, fmt.Sprintf(`"d%d":{"$anchor":"a%d","anyOf":[{"$ref":"#a%d"},{"$ref":"#a%d"}]}`, i, i, i+1, i+1))
		default:
			defs = append(defs, fmt.Sprintf(`"d%d":{"type":"object","properties":{"a":%s,"b":%s}}`, i, next, next))
		}
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"$anchor":"a%d","type":"object"}`, levels, levels))
	return json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// A schema whose $refs fan out (each level refers to the next twice) is
// 2 KB and 5 levels deep as written, within every bound, and 2^30
// schemas once followed: validating any call's arguments against it (the
// executor does it before every call) evaluates 2^30 of them, one CPU for
// hours (18 levels took 0.9 s, each level doubles it), and a provider
// export that inlines $refs (Gemini) writes them all out. Tools listed it.
func TestAttackSchemaWhoseRefsFanOutIsLeftOut(t *testing.T) {
	require.NoError(t, bounded(fanOutSchema(30, "allOf")), "within the bounds as written")
	t.Logf("%d bytes", len(fanOutSchema(30, "allOf")))
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for _, kw := range []string{"allOf", "anchor", "properties"} {
		srv.AddTool(&mcp.Tool{Name: "in_" + kw, Description: "d", InputSchema: fanOutSchema(30, kw)}, noop)
	}
	srv.AddTool(&mcp.Tool{Name: "out_allOf", Description: "d", InputSchema: openObject, OutputSchema: fanOutSchema(30, "allOf")}, noop)
	// A recursive schema (a tree) and a definition used many times are
	// fine: following each $ref once, they stay small.
	srv.AddTool(&mcp.Tool{Name: "tree", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},
		"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"left":{"$ref":"#/$defs/node"},"right":{"$ref":"#/$defs/node"},
		"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`)}, noop)
	srv.AddTool(&mcp.Tool{Name: "shared", Description: "d", InputSchema: fanOutSchema(8, "allOf")}, noop)

	c := connectServer(t, srv)
	start := time.Now()
	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	t.Logf("listing took %v", time.Since(start))
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	assert.ElementsMatch(t, []string{"tree", "shared"}, names)
	reasons := map[string]string{}
	for _, s := range c.Skipped() {
		reasons[s.Remote] = s.Reason
	}
	for _, n := range []string{"in_allOf", "in_anchor", "in_properties"} {
		assert.Contains(t, reasons[n], "inputSchema is refused", n)
		assert.Contains(t, reasons[n], "$ref", n)
	}
	assert.Contains(t, reasons["out_allOf"], "outputSchema is refused")
}

// expanded counts a schema's subschemas with each $ref followed (a $ref
// back into itself once); it saturates past the bound.
func TestExpandedSchemaSize(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   int
	}{
		{`{"type":"object"}`, 1},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"array","items":{"type":"integer"}}}}`, 4},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"object","properties":{"c":{"type":"string"}}}}}`, 7},
		{`{"type":"object","properties":{"self":{"$ref":"#"}}}`, 3},
		{string(fanOutSchema(40, "allOf")), maxExpandedSchema + 1},
	} {
		n, err := expandedSize(json.RawMessage(tc.schema))
		require.NoError(t, err, tc.schema)
		assert.Equal(t, tc.want, n, tc.schema)
	}
}
