package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// cookieAuth is a host's own authentication: it checks every request's
// cookie and puts the user in the request's context (tool.WithPrincipal),
// the principal the server uses when no PrincipalFunc names one.
func cookieAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := strings.CutPrefix(r.Header.Get("Cookie"), "session=")
		if !ok || user == "" {
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), tool.Principal{ID: user})))
	})
}

// whoamiServer serves a tool that answers with the principal it runs as.
func whoamiServer(t *testing.T, opts ...HTTPOption) string {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "principal=" + p.ID, nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	srv := httptest.NewServer(cookieAuth(s.HTTPHandler(opts...)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawCall posts one tools/call of whoami on session sid with cookie, and
// returns the status and the body.
func rawCall(t *testing.T, url, sid, version, cookie string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Cookie", cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// In a stateful session, the SDK gives every call the context of the
// request that opened the session. A principal the host's middleware put
// in each request's context is then the session opener's, for every call
// on the session: bob, signed in as bob, posting on alice's session (its
// id seen in a log, a proxy, a shared machine) ran as alice. The SDK
// refuses a session to another verified token's user; a principal taken
// from the context must be refused the same way.
func TestAStatefulSessionIsNotAnotherPrincipals(t *testing.T) {
	url := whoamiServer(t, Stateful())
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil)
	alice, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"session=alice"}}}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer alice.Close()
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Equal(t, "principal=alice", resultText(res))
	version := alice.InitializeResult().ProtocolVersion

	code, body := rawCall(t, url, alice.ID(), version, "session=alice")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, "principal=alice", "the session's own user is served")

	code, body = rawCall(t, url, alice.ID(), version, "session=bob")
	assert.NotContains(t, body, "principal=alice", "bob ran as alice on her session")
	assert.Equal(t, http.StatusForbidden, code, "bob's request on alice's session is refused: %s", body)
	assert.NotContains(t, body, "alice", "the refusal does not say whose the session is")

	// Nor may bob end her session.
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	require.NoError(t, err)
	req.Header.Set("Mcp-Session-Id", alice.ID())
	req.Header.Set("Cookie", "session=bob")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	res, err = alice.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	require.NoError(t, err, "alice's session lives on")
	assert.Equal(t, "principal=alice", resultText(res))
}

// Roles are part of the principal: a session opened with the ops role is
// not used, once the middleware no longer grants it, to run calls as ops.
func TestAStatefulSessionKeepsItsRoles(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "principal=" + p.ID + " roles=" + strings.Join(p.Roles, ","), nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	roles := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := tool.Principal{ID: "alice", Roles: strings.Split(r.Header.Get("Cookie"), ",")}
			next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), p)))
		})
	}
	srv := httptest.NewServer(roles(s.HTTPHandler(Stateful())))
	defer srv.Close()
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL,
		HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"dev,ops"}}}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()
	version := cs.InitializeResult().ProtocolVersion
	code, body := rawCall(t, srv.URL, cs.ID(), version, "dev,ops")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "roles=dev,ops")
	code, body = rawCall(t, srv.URL, cs.ID(), version, "dev")
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.NotContains(t, body, "ops")
}

// Stateless, each call has its own request's context: a session id
// (chosen by the client) carries no one's principal. A guard: it fails if
// a stateless handler kept principals by session.
func TestAStatelessSessionIdCarriesNoPrincipal(t *testing.T) {
	url := whoamiServer(t)
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil)
	alice, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"session=alice"}}}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer alice.Close()
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Equal(t, "principal=alice", resultText(res))
	// An older revision: a 2026-07-28 request also names its version in _meta.
	code, body := rawCall(t, url, alice.ID(), "2025-06-18", "session=bob")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "principal=bob")
}

// A proxy that adds its headers rather than replacing them (Envoy's
// request_headers_to_add appends by default) leaves the client's own
// first: the header then holds two users, and the first one read was the
// client's choice. Such a request names no one: it is anonymous, and the
// auth extension refuses it.
func TestPrincipalFromHeaderRefusesTwoValues(t *testing.T) {
	appending := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Cookie") == "session=carol" {
				r.Header.Add("X-User", "carol")
				r.Header.Add("X-Roles", "dev")
			}
			next.ServeHTTP(w, r)
		})
	}
	url, refused := principalServer(t, PrincipalFromHeader("X-User", "X-Roles"), appending)
	_, err := callDeploy(t, url, http.Header{"Cookie": {"session=carol"}, "X-User": {"mallory"}, "X-Roles": {"ops"}})
	assert.ErrorContains(t, err, `unknown tool "deploy"`, "mallory, signed in as carol, deployed as an ops user")
	assert.Contains(t, refused(), "identified user", "the call is anonymous")
	// Roles alone, added to carol's own single user header, grant nothing either.
	_, err = callDeploy(t, url, http.Header{"Cookie": {"session=carol"}, "X-Roles": {"ops"}})
	assert.ErrorContains(t, err, `unknown tool "deploy"`, "carol, a dev, deployed with a role she sent herself")
	assert.Contains(t, refused(), "identified user", "two role headers name no one")

	pf := PrincipalFromHeader("X-User", "X-Roles")
	one := func(h http.Header) tool.Principal {
		return pf(context.Background(), &mcp.CallToolRequest{Extra: &mcp.RequestExtra{Header: h}})
	}
	assert.Equal(t, tool.Principal{ID: "carol", Roles: []string{"dev", "ops"}}, one(http.Header{"X-User": {"carol"}, "X-Roles": {"dev, ops"}}))
	assert.Equal(t, tool.Principal{}, one(http.Header{"X-User": {"mallory", "carol"}}))
	assert.Equal(t, tool.Principal{}, one(http.Header{"X-User": {"carol"}, "X-Roles": {"ops", "dev"}}))
}

// The bindings of ended sessions are forgotten: opening and closing many
// sessions keeps the map near the number of live ones.
func TestSessionOwnersForgetEndedSessions(t *testing.T) {
	defer func(n int) { minPrune = n }(minPrune)
	minPrune = 16
	reg := registry.New()
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	h := s.HTTPHandler(Stateful())
	srv := httptest.NewServer(cookieAuth(h))
	defer srv.Close()
	ctx := context.Background()
	for i := range 10 * minPrune {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL,
			HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {"session=u" + strconv.Itoa(i)}}}}, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		require.NoError(t, cs.Close())
	}
	o := h.(*sessionOwners)
	o.mu.Lock()
	n := len(o.owners)
	o.mu.Unlock()
	assert.LessOrEqual(t, n, minPrune, "bindings kept after %d sessions ended", 10*minPrune)
}
