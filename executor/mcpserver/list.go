package mcpserver

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// hasAuthorizer reports whether ex's chain has an extension that says,
// without running a call, whether a principal may make it
// (extension.Authorizer: extension/auth's Auth), found through a
// re-placement (extension.WithPriority) too.
func hasAuthorizer(ex *executor.Executor) bool {
	return slices.ContainsFunc(ex.Extensions(), func(x extension.Extension) bool {
		_, ok := extension.As[extension.Authorizer](x)
		return ok
	})
}

// listAuthorized is a receiving middleware that leaves out of a
// tools/list answer the tools its principal (requestPrincipal, as a call
// on the request would run as) may not call by the executor's
// authorizers: a tool's name, description and schema are the host's to
// show only to those who may use it, and a model offered a tool whose
// every call is refused wastes turns on it. Calls are still judged by the
// executor; this only hides.
//
// The pages are cut from the tools the principal may call, with cursors
// of this package (listCursor): the SDK's cursor is the base64 of the
// last name on its page, which may be a hidden tool's, and its pages
// count the hidden tools.
func (s *Server) listAuthorized(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		lreq, ok := req.(*mcp.ListToolsRequest)
		if method != "tools/list" || !s.authz || !ok {
			return next(ctx, method, req)
		}
		after := ""
		if lreq.Params != nil && lreq.Params.Cursor != "" {
			name, err := base64.RawURLEncoding.DecodeString(lreq.Params.Cursor)
			if err != nil || !strings.HasPrefix(string(name), listCursor) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: give the nextCursor of the previous tools/list answer, or none for the first page"}
			}
			after = strings.TrimPrefix(string(name), listCursor)
		}
		// Every tool the SDK lists, in its order (by name), over all its
		// pages; then the principal's, after the cursor's name.
		p := s.requestPrincipal(ctx, req)
		var visible []*mcp.Tool
		sdkCursor := ""
		for {
			page := &mcp.ListToolsRequest{Session: lreq.Session, Extra: lreq.Extra, Params: &mcp.ListToolsParams{Cursor: sdkCursor}}
			if lreq.Params != nil {
				page.Params.Meta = lreq.Params.Meta
			}
			res, err := next(ctx, method, page)
			if err != nil {
				return res, err
			}
			lr, ok := res.(*mcp.ListToolsResult)
			if !ok || lr == nil {
				return res, nil
			}
			for _, t := range lr.Tools {
				if t.Name > after && s.mayCall(p, t.Name) {
					visible = append(visible, t)
				}
			}
			if lr.NextCursor == "" || lr.NextCursor == sdkCursor {
				break
			}
			sdkCursor = lr.NextCursor
		}
		size := s.cfg.pageSize
		if size == 0 {
			size = mcp.DefaultPageSize
		}
		out := &mcp.ListToolsResult{Tools: visible}
		if len(visible) > size {
			out.Tools = visible[:size]
			out.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(listCursor + visible[size-1].Name))
		}
		return out, nil
	}
}

// listCursor begins the text of a tools/list cursor this package writes;
// the name of the last tool of the page (one the principal may call)
// follows it.
const listCursor = "toolbelt-tools-after:"

// mayCall reports whether the executor's authorizers let p call the
// registry's tool name (executor.Authorize; false for a tool no longer
// registered).
func (s *Server) mayCall(p tool.Principal, name string) bool {
	e, ok := s.ex.Registry().Lookup(name)
	if !ok {
		return false
	}
	_, err := s.ex.Authorize(p, &e.Spec)
	return err == nil
}
