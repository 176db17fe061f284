package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/tool"
)

// authorizer is an extension that says, without running a call, whether
// a principal may make it: extension/auth's Auth (Authorize).
type authorizer = extension.Authorizer

// authorizers are the extensions of ex's chain that are authorizers, found
// through a re-placement (extension.WithPriority) too.
func authorizers(ex *executor.Executor) []authorizer {
	var as []authorizer
	for _, e := range ex.Extensions() {
		if a, ok := extension.As[authorizer](e); ok {
			as = append(as, a)
		}
	}
	return as
}

// listAuthorized is a receiving middleware that leaves out of a
// tools/list answer the tools its principal (requestPrincipal, as a call
// on the request would run as) may not call by the executor's
// authorizers: a tool's name, description and schema are the host's to
// show only to those who may use it, and a model offered a tool whose
// every call is refused wastes turns on it. Calls are still judged by the
// executor; this only hides.
func (s *Server) listAuthorized(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil || len(s.authz) == 0 {
			return res, err
		}
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok || lr == nil {
			return res, err
		}
		p := s.requestPrincipal(ctx, req)
		out := *lr
		out.Tools = make([]*mcp.Tool, 0, len(lr.Tools))
		for _, t := range lr.Tools {
			if s.mayCall(p, t.Name) {
				out.Tools = append(out.Tools, t)
			}
		}
		return &out, nil
	}
}

// mayCall reports whether every authorizer lets p call the registry's
// tool name (false for a tool no longer registered).
func (s *Server) mayCall(p tool.Principal, name string) bool {
	e, ok := s.ex.Registry().Lookup(name)
	if !ok {
		return false
	}
	for _, a := range s.authz {
		if _, err := a.Authorize(p, &e.Spec); err != nil {
			return false
		}
	}
	return true
}
