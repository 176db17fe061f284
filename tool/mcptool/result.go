package mcptool

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/internal/mcpcontent"
	"github.com/toolbelt-go/toolbelt/tool"
)

// MetaError is the _meta key under which a toolbelt server (executor/
// mcpserver) puts the *tool.Error of a failed call, so that a toolbelt
// client gets the exact code, retryability and retry-after back.
const MetaError = "toolbelt/error"

// MetaResultMeta is the result metadata key under which a call's result
// keeps the server's _meta as it came (one over 16 KiB encoded, or past
// the result's 64 KiB for such fields, is replaced by a note saying so).
const MetaResultMeta = "mcp.meta"

// fromMCP maps a tools/call result to a tool.Result.
func fromMCP(t *remoteTool, res *mcp.CallToolResult) (*tool.Result, error) {
	r := &tool.Result{}
	if len(res.Content) > 0 {
		r.Content = make([]tool.Content, 0, min(len(res.Content), maxBlocks+1))
	}
	side := &sideBudget{left: maxSideBytes}
	for i, c := range res.Content {
		if len(r.Content) == maxBlocks {
			r.Content = append(r.Content, tool.TextContent(fmt.Sprintf("[%d more content blocks cut: a result keeps at most %d]", len(res.Content)-i, maxBlocks)))
			break
		}
		if tc, ok := contentFrom(c); ok {
			side.block(&tc)
			r.Content = append(r.Content, tc)
		}
	}
	if res.StructuredContent != nil {
		out, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidOutput, "MCP tool %q returned structured content that does not encode as JSON: %v", t.remote, err)
		}
		r.Output = out
	}
	if len(res.Meta) > 0 {
		r.SetMeta(MetaResultMeta, side.meta(res.Meta))
	}
	switch {
	case res.IsError:
		r.Error = resultError(res, r.Text())
		r.Status = r.Error.Code.Status()
	case res.StructuredContent == nil && len(t.spec.OutputSchema) > 0:
		// The executor validates structured output against the schema;
		// a success without any would pass unchecked, its text taken
		// for what the schema promised. MCP requires it (and the
		// TypeScript SDK's client refuses such a result too).
		r.Error = tool.Errorf(tool.CodeInvalidOutput, "MCP tool %s declares an output schema but answered without structuredContent, which MCP requires of such a tool: fix the server, or drop the schema with WithSpec", quote(t.remote))
		r.Status = r.Error.Code.Status()
	}
	return r, nil
}

func contentFrom(c mcp.Content) (tool.Content, bool) { return mcpcontent.From(c) }

var (
	unknownToolRE = regexp.MustCompile(`(?i)\b(unknown|no such|unrecognized|unrecognised|invalid) tool\b|\btool\b[^.\n]{0,80}\b(not found|does not exist|is not registered)\b`)
	invalidArgsRE = regexp.MustCompile(`(?i)\binvalid (argument|arguments|params|parameters|input)\b|validating "?arguments"?|\bmissing required\b|\brequired (property|argument|field|parameter)\b|\bunexpected (argument|property|field)\b|\badditional properties?\b`)
)

// resultError builds the error of an isError result: the exact error a
// toolbelt server attached, a "code: message" text whose code is ours, an
// unknown-tool or invalid-arguments text (servers report these as isError
// text as often as JSON-RPC errors), or else CodeInternal with the text.
func resultError(res *mcp.CallToolResult, text string) *tool.Error {
	if raw, ok := res.Meta[MetaError]; ok {
		if b, err := json.Marshal(raw); err == nil {
			var te tool.Error
			if json.Unmarshal(b, &te) == nil && te.Code.Valid() {
				te.Message = clipText(te.Message)
				return &te
			}
		}
	}
	text = clipText(strings.TrimSpace(text))
	if text == "" {
		return tool.NewError(tool.CodeInternal, "the MCP server reported an error without a message")
	}
	if code, msg, ok := strings.Cut(text, ": "); ok && tool.Code(code).Valid() {
		return tool.NewError(tool.Code(code), msg)
	}
	switch {
	case unknownToolRE.MatchString(text):
		return tool.NewError(tool.CodeNotFound, text)
	case invalidArgsRE.MatchString(text):
		return tool.NewError(tool.CodeInvalidArguments, text)
	}
	return tool.NewError(tool.CodeInternal, text)
}

// callError maps an error from CallTool. transport reports that the
// connection is unusable and must be dropped.
func callError(t *remoteTool, err error) (te *tool.Error, transport bool) {
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code != codeRejectedByTransport {
		msg := clipText(je.Message)
		err = answerCause(je, msg)
		switch {
		case unknownToolRE.MatchString(msg):
			return &tool.Error{Code: tool.CodeNotFound, Message: "the MCP server has no tool " + quote(t.remote) + ": " + msg, Err: err}, false
		case je.Code == jsonrpc.CodeInvalidParams || invalidArgsRE.MatchString(msg):
			return &tool.Error{Code: tool.CodeInvalidArguments, Message: msg, Err: err}, false
		case je.Code == jsonrpc.CodeMethodNotFound:
			return &tool.Error{Code: tool.CodeNotFound, Message: "the MCP server does not serve tools/call: " + msg, Err: err}, false
		}
		return &tool.Error{Code: tool.CodeInternal, Message: "the MCP server failed the call: " + msg, Err: err}, false
	}
	// Anything that is not a JSON-RPC answer is the connection failing:
	// the server exited, the pipe broke, the HTTP endpoint is down.
	return &tool.Error{Code: tool.CodeUnavailable, Retryable: true, Message: "the MCP server for " + quote(t.remote) + " is unavailable (" + clipText(err.Error()) + "); the next call reconnects", Err: err}, true
}

// answerCause is the cause an error result keeps of the server's JSON-RPC
// error je: its code, its message cut as the result's is (msg), and its
// data only up to maxErrorText. The SDK's error holds the server's whole
// message and data (up to 16 MiB), which the result would keep past the
// executor's output cap, in every transcript and job that holds it.
func answerCause(je *jsonrpc.Error, msg string) *jsonrpc.Error {
	out := &jsonrpc.Error{Code: je.Code, Message: msg}
	if len(je.Data) <= maxErrorText {
		out.Data = je.Data
	}
	return out
}

// codeRejectedByTransport is the JSON-RPC code the SDK gives a request its
// transport could not deliver (the HTTP endpoint is down, the pipe closed):
// it looks like an answer but is the connection failing.
const codeRejectedByTransport = -32005

func listError(err error) (*tool.Error, bool) {
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code != codeRejectedByTransport {
		msg := clipText(je.Message)
		return &tool.Error{Code: tool.CodeInternal, Message: "the MCP server failed tools/list: " + msg, Err: answerCause(je, msg)}, false
	}
	return &tool.Error{Code: tool.CodeUnavailable, Retryable: true, Message: "the MCP server is unavailable: " + clipText(err.Error()), Err: err}, true
}

// maxErrorText is how much of a server's error text an error message
// keeps: the executor caps a result's output and content, not its message.
const maxErrorText = 4 << 10

// clipText cuts a server's error text to maxErrorText bytes of valid UTF-8,
// saying so.
func clipText(s string) string { return cutText(s, "message", maxErrorText) }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Bounds on the parts of a result the executor's output cap does not count
// (it counts text and bytes): a block's name, URI, title, description, MIME
// type and annotations, and the _meta of blocks and of the result. The
// model reads a resource link as "[resource NAME URI]", and metadata goes
// to audit records and logs.
const (
	maxBlocks     = 1000     // content blocks kept; a marker says how many more came
	maxBlockField = 4 << 10  // bytes of one such field
	maxMeta       = 16 << 10 // bytes of one _meta (encoded)
	maxSideBytes  = 64 << 10 // bytes of all such fields and _meta of one result
)

// sideBudget cuts a result's uncounted fields to what is left of
// maxSideBytes.
type sideBudget struct{ left int }

// text cuts s to maxBlockField bytes and to what is left, saying so.
func (b *sideBudget) text(s, what string) string {
	if s == "" {
		return s
	}
	if b.left <= 0 {
		return "[cut]"
	}
	if lim := min(maxBlockField, b.left); len(s) > lim {
		s = cutText(s, what, lim)
	}
	b.left -= len(s)
	return s
}

func (b *sideBudget) block(c *tool.Content) {
	c.URI = b.text(c.URI, "URI")
	c.Name = b.text(c.Name, "name")
	c.Title = b.text(c.Title, "title")
	c.Description = b.text(c.Description, "description")
	c.MIMEType = b.text(c.MIMEType, "MIME type")
	if a := c.Annotations; a != nil {
		a.LastModified = b.text(a.LastModified, "lastModified")
		if len(a.Audience) > 8 {
			a.Audience = a.Audience[:8]
		}
		for i := range a.Audience {
			a.Audience[i] = b.text(a.Audience[i], "audience")
		}
	}
	if len(c.Meta) > 0 {
		if m, ok := b.meta(c.Meta).(map[string]any); ok {
			c.Meta = m
		}
	}
}

// meta returns m, or a note in its place when its encoding is over
// maxMeta or what is left.
func (b *sideBudget) meta(m map[string]any) any {
	enc, err := json.Marshal(m)
	if err == nil && len(enc) <= min(maxMeta, b.left) {
		b.left -= len(enc)
		return m
	}
	b.left -= 64
	return map[string]any{"toolbelt/cut": fmt.Sprintf("the server's _meta is %d bytes: a result keeps %d", len(enc), maxMeta)}
}
