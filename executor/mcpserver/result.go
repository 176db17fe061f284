package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/internal/mcpcontent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// toMCP maps an executor result to a tools/call result. Success: the
// content blocks, and structured output as structuredContent plus its JSON
// as a text block (for clients that read text only). Failure of any kind
// (backend error, denial, invalid arguments, invalid output): isError, the
// content the backend produced, a "code: message" text block, and the
// *tool.Error under _meta[MetaError].
func toMCP(res *tool.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(res.Content)+1)}
	for _, c := range res.Content {
		if mc := contentTo(c); mc != nil {
			out.Content = append(out.Content, mc)
		}
	}
	if res.Error == nil && res.OK() {
		if len(res.Output) > 0 {
			out.StructuredContent = json.RawMessage(res.Output)
			text := string(res.Output)
			dup := false
			for _, c := range res.Content {
				if c.Type == tool.ContentText && c.Text == text {
					dup = true
					break
				}
			}
			if !dup {
				out.Content = append(out.Content, &mcp.TextContent{Text: text})
			}
		}
		return out
	}
	te := res.Error
	if te == nil {
		te = tool.Errorf(tool.CodeInternal, "the call ended with status %q and no error", res.Status)
	}
	out.IsError = true
	out.Content = append(out.Content, &mcp.TextContent{Text: ErrorText(te)})
	out.Meta = mcp.Meta{MetaError: te}
	return out
}

// ErrorText is the text a failed call is reported with: "code: message",
// plus whether and when a retry may help, so a model can act on it.
func ErrorText(te *tool.Error) string {
	var b strings.Builder
	b.WriteString(string(te.Code))
	b.WriteString(": ")
	msg := te.Message
	if msg == "" {
		msg = "the call failed"
	}
	b.WriteString(msg)
	if te.Retryable {
		if te.RetryAfter > 0 {
			fmt.Fprintf(&b, " (retryable after %v)", te.RetryAfter)
		} else {
			b.WriteString(" (retryable)")
		}
	}
	return b.String()
}

func contentTo(c tool.Content) mcp.Content { return mcpcontent.To(c) }
