package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/toolbelt/tool"
)

// PrincipalFromToken is a PrincipalFunc for servers behind the SDK's bearer
// token middleware (auth.RequireBearerToken): the principal is the verified
// token's UserID, its roles the token's scopes, and its tenant the string
// under Extra["tenant"], if any. A call without a verified token, or whose
// token names no user, has no principal (the auth extension refuses it
// unless anonymous calls are allowed).
func PrincipalFromToken() PrincipalFunc {
	return func(ctx context.Context, req *mcp.CallToolRequest) tool.Principal {
		var info *auth.TokenInfo
		if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
			info = req.Extra.TokenInfo
		} else {
			info = auth.TokenInfoFromContext(ctx)
		}
		if info == nil || info.UserID == "" {
			return tool.Principal{}
		}
		p := tool.Principal{ID: info.UserID, Roles: append([]string(nil), info.Scopes...)}
		if t, ok := info.Extra["tenant"].(string); ok {
			p.Tenant = t
		}
		return p
	}
}

// PrincipalFromHeader is a PrincipalFunc that reads the principal from HTTP
// headers set by a proxy in front of the server: idHeader names the user,
// and rolesHeader (optional, "" for none) lists roles separated by commas.
//
// Use it only where every request passes through a proxy that sets these
// headers itself and drops any a client sent: otherwise any client can name
// itself anyone. Over stdio there are no headers and no principal. A
// request with more than one line of either header names no principal: a
// proxy that adds its header instead of replacing it (Envoy's
// request_headers_to_add appends by default) leaves the client's line
// first, and which line is the proxy's cannot be told.
func PrincipalFromHeader(idHeader, rolesHeader string) PrincipalFunc {
	return func(_ context.Context, req *mcp.CallToolRequest) tool.Principal {
		if req == nil || req.Extra == nil || req.Extra.Header == nil {
			return tool.Principal{}
		}
		h := req.Extra.Header
		if len(h.Values(idHeader)) > 1 || (rolesHeader != "" && len(h.Values(rolesHeader)) > 1) {
			return tool.Principal{}
		}
		p := tool.Principal{ID: strings.TrimSpace(h.Get(idHeader))}
		if p.ID == "" {
			return tool.Principal{}
		}
		if rolesHeader != "" {
			for _, r := range strings.Split(h.Get(rolesHeader), ",") {
				if r = strings.TrimSpace(r); r != "" {
					p.Roles = append(p.Roles, r)
				}
			}
		}
		return p
	}
}
