package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// whoamiServerWith serves whoami (it answers "principal=<tenant>/<id>")
// statefully, with principals taken by pf, behind mw.
func whoamiServerWith(t *testing.T, pf PrincipalFunc, mw func(http.Handler) http.Handler) string {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "principal=" + p.Tenant + "/" + p.ID, nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg), WithPrincipal(pf))
	require.NoError(t, err)
	srv := httptest.NewServer(mw(s.HTTPHandler(Stateful())))
	t.Cleanup(srv.Close)
	return srv.URL
}

// deleteSession sends DELETE for session sid with the headers h.
func deleteSession(t *testing.T, url, sid string, h http.Header) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// A stateful session belongs to the principal that opened it (7042a35),
// but the binding looked only at the principal of the request's context:
// where a PrincipalFunc names the principal (PrincipalFromHeader behind a
// proxy, PrincipalFromToken), every request's context carries none, every
// session was "opened by nobody", and anyone holding its id (a log, a
// proxy, a shared machine) used it: bob's calls ran on alice's session
// (with her session's approvals and elicitations), and bob ended it with a
// DELETE. The SDK's own check of a token's user compares the user id
// alone, so alice of globex used alice of acme's session (ids are per
// tenant). A session is now bound to the principal the server would run
// its calls as: the PrincipalFunc's, else the context's.
func TestAttackS17AStatefulSessionIsNotAnotherPrincipalsUnderAPrincipalFunc(t *testing.T) {
	// The proxy in front sets X-User from its own sign-in, and drops
	// what clients sent.
	proxy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("X-User")
			if user, ok := strings.CutPrefix(r.Header.Get("Cookie"), "session="); ok {
				r.Header.Set("X-User", user)
			}
			next.ServeHTTP(w, r)
		})
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, tenant, ok := strings.Cut(token, "@")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: farFuture, Extra: map[string]any{"tenant": tenant}}, nil
	}
	for _, tc := range []struct {
		name            string
		url             string
		owner, intruder http.Header
		ownerIs         string
	}{
		{"PrincipalFromHeader", whoamiServerWith(t, PrincipalFromHeader("X-User", ""), proxy),
			http.Header{"Cookie": {"session=alice"}}, http.Header{"Cookie": {"session=bob"}}, "principal=/alice"},
		{"PrincipalFromToken, another tenant's user of the same id", whoamiServerWith(t, PrincipalFromToken(), auth.RequireBearerToken(verify, nil)),
			http.Header{"Authorization": {"Bearer alice@acme"}}, http.Header{"Authorization": {"Bearer alice@globex"}}, "principal=acme/alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := mcp.NewClient(&mcp.Implementation{Name: "owner", Version: "1"}, nil)
			owner, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: tc.url,
				HTTPClient: &http.Client{Transport: headerTransport{tc.owner}}, DisableStandaloneSSE: true}, nil)
			require.NoError(t, err)
			defer owner.Close()
			whoami := func() string {
				res, err := owner.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
				require.NoError(t, err, "the owner's session lives on")
				return resultText(res)
			}
			require.Equal(t, tc.ownerIs, whoami())
			version := owner.InitializeResult().ProtocolVersion

			code, body := rawCallWith(t, tc.url, owner.ID(), version, tc.owner)
			require.Equal(t, http.StatusOK, code, body)
			require.Contains(t, body, tc.ownerIs, "the session's own user is served")

			code, body = rawCallWith(t, tc.url, owner.ID(), version, tc.intruder)
			assert.Equal(t, http.StatusForbidden, code, "another principal's call on the owner's session was taken: %s", body)
			assert.NotContains(t, body, tc.ownerIs, "the refusal does not say whose the session is")

			assert.Equal(t, http.StatusForbidden, deleteSession(t, tc.url, owner.ID(), tc.intruder), "another principal ended the owner's session")
			assert.Equal(t, tc.ownerIs, whoami())
		})
	}
}

// A client names nobody through what it sends: a principal in the call's
// _meta, in the arguments, or in a header the PrincipalFunc does not
// read is not taken (the proxy's header is the only source here). This
// held; it is pinned, so that no convenience reading of _meta creeps in.
func TestAttackS17AClientCannotNameItsPrincipalInTheRequest(t *testing.T) {
	proxy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("X-User")
			if user, ok := strings.CutPrefix(r.Header.Get("Cookie"), "session="); ok {
				r.Header.Set("X-User", user)
			}
			next.ServeHTTP(w, r)
		})
	}
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ map[string]any) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "principal=" + p.Tenant + "/" + p.ID + " roles=" + strings.Join(p.Roles, ","), nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg), WithPrincipal(PrincipalFromHeader("X-User", "")))
	require.NoError(t, err)
	srv := httptest.NewServer(proxy(s.HTTPHandler()))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami",` +
		`"arguments":{"principal":{"id":"root","tenant":"ops","roles":["admin"]}},` +
		`"_meta":{"principal":{"id":"root","tenant":"ops","roles":["admin"]},"tenant":"ops","user":"root","toolbelt/principal":"root"}}}`
	for _, who := range []string{"", "session=bob"} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("X-Principal", "root")
		req.Header.Set("X-Tenant", "ops")
		if who != "" {
			req.Header.Set("Cookie", who)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		assert.NotContains(t, string(b), "root", "%q named itself", who)
		assert.NotContains(t, string(b), "ops/")
		if who == "" {
			assert.Contains(t, string(b), "principal=/ roles=")
		} else {
			assert.Contains(t, string(b), "principal=/bob roles=")
		}
	}
}

// rawCallWith is rawCall with the headers h in place of a cookie.
func rawCallWith(t *testing.T, url, sid, version string, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
	require.NoError(t, err)
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
