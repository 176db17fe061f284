// Package mcpcontent is the one mapping between the SDK's content blocks
// (github.com/modelcontextprotocol/go-sdk/mcp) and tool.Content, both ways:
// the MCP server (executor/mcpserver) sends results with To, the MCP client
// (tool/mcptool) reads them with From. Annotations, _meta and a resource
// link's title, description and size survive the trip.
package mcpcontent

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/tool"
)

// From maps an SDK content block to a tool.Content; ok is false for a block
// it does not know (or an embedded resource without its resource). A
// link's negative size counts as unknown (0), and a resource with both
// text and a blob keeps the text only, so that To gives back the same block.
func From(c mcp.Content) (tool.Content, bool) {
	switch v := c.(type) {
	case *mcp.TextContent:
		return tool.Content{Type: tool.ContentText, Text: v.Text, Annotations: annotationsFrom(v.Annotations), Meta: v.Meta}, true
	case *mcp.ImageContent:
		return tool.Content{Type: tool.ContentImage, Data: v.Data, MIMEType: v.MIMEType, Annotations: annotationsFrom(v.Annotations), Meta: v.Meta}, true
	case *mcp.AudioContent:
		return tool.Content{Type: tool.ContentAudio, Data: v.Data, MIMEType: v.MIMEType, Annotations: annotationsFrom(v.Annotations), Meta: v.Meta}, true
	case *mcp.ResourceLink:
		tc := tool.Content{Type: tool.ContentResourceLink, URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description,
			MIMEType: v.MIMEType, Annotations: annotationsFrom(v.Annotations), Meta: v.Meta}
		if v.Size != nil && *v.Size > 0 { // a negative size is unknown, as To writes it
			tc.Size = *v.Size
		}
		return tc, true
	case *mcp.EmbeddedResource:
		if v.Resource == nil {
			return tool.Content{}, false
		}
		tc := tool.Content{Type: tool.ContentResource, URI: v.Resource.URI, MIMEType: v.Resource.MIMEType, Text: v.Resource.Text,
			Annotations: annotationsFrom(v.Annotations), Meta: v.Meta}
		if tc.Text == "" {
			// A resource is text or a blob: a server that sends both has
			// its text read (and sent on, as To sends it), never a blob
			// beside it that a reader of the text does not see.
			tc.Data = v.Resource.Blob
		}
		return tc, true
	}
	return tool.Content{}, false
}

// To maps a tool.Content to an SDK content block; nil for an empty block of
// an unknown type.
func To(c tool.Content) mcp.Content {
	a, meta := annotationsTo(c.Annotations), mcp.Meta(c.Meta)
	switch c.Type {
	case tool.ContentText:
		return &mcp.TextContent{Text: c.Text, Annotations: a, Meta: meta}
	case tool.ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: a, Meta: meta}
	case tool.ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: a, Meta: meta}
	case tool.ContentResourceLink:
		rl := &mcp.ResourceLink{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType, Annotations: a, Meta: meta}
		if c.Size > 0 {
			size := c.Size
			rl.Size = &size
		}
		return rl
	case tool.ContentResource:
		rc := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}
		if c.Text == "" {
			rc.Blob = c.Data
		}
		return &mcp.EmbeddedResource{Resource: rc, Annotations: a, Meta: meta}
	}
	if c.Text != "" {
		return &mcp.TextContent{Text: c.Text, Annotations: a, Meta: meta}
	}
	return nil
}

func annotationsFrom(a *mcp.Annotations) *tool.ContentAnnotations {
	if a == nil {
		return nil
	}
	out := &tool.ContentAnnotations{Priority: a.Priority, LastModified: a.LastModified}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, string(r))
	}
	return out
}

func annotationsTo(a *tool.ContentAnnotations) *mcp.Annotations {
	if a == nil {
		return nil
	}
	out := &mcp.Annotations{Priority: a.Priority, LastModified: a.LastModified}
	for _, r := range a.Audience {
		out.Audience = append(out.Audience, mcp.Role(r))
	}
	return out
}
