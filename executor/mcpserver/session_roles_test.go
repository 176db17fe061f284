package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// rolesServer serves whoami behind a middleware that signs in alice with
// the roles the request's Cookie lists (comma-separated), as a host that
// reads them from a token or a directory on every request.
func rolesServer(t *testing.T) string {
	t.Helper()
	reg := registry.New()
	reg.MustRegister(tool.Func("whoami", "Say who calls", func(ctx context.Context, _ struct{}) (string, error) {
		p, _ := tool.PrincipalFrom(ctx)
		return "principal=" + p.ID + " roles=" + strings.Join(p.Roles, ","), nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	roles := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := tool.Principal{ID: "alice", Tenant: "acme", Roles: strings.Split(r.Header.Get("Cookie"), ",")}
			next.ServeHTTP(w, r.WithContext(tool.WithPrincipal(r.Context(), p)))
		})
	}
	srv := httptest.NewServer(roles(s.HTTPHandler(Stateful())))
	t.Cleanup(srv.Close)
	return srv.URL
}

func openSession(t *testing.T, url, cookie string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{http.Header{"Cookie": {cookie}}}}, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Roles are a set: a host that builds them from a map, a set or a
// directory lists them in any order from one request to the next. 7042a35
// compared them in order, so alice's own session refused her (403, "opened
// by another principal") when her roles came as [ops dev] after [dev ops].
func TestAStatefulSessionTakesItsRolesInAnyOrder(t *testing.T) {
	url := rolesServer(t)
	cs := openSession(t, url, "dev,ops")
	version := cs.InitializeResult().ProtocolVersion
	for _, cookie := range []string{"dev,ops", "ops,dev", "ops,dev,dev"} {
		code, body := rawCall(t, url, cs.ID(), version, cookie)
		assert.Equal(t, http.StatusOK, code, "roles %s: %s", cookie, body)
		assert.Contains(t, body, "principal=alice")
	}
	// Guard: another set of roles is still refused.
	code, _ := rawCall(t, url, cs.ID(), version, "dev")
	assert.Equal(t, http.StatusForbidden, code)
}

// A principal whose roles changed (a refreshed token adds or drops one)
// cannot go on with the session opened with the old ones, whose calls the
// SDK runs with the opener's context. The refusal said "this session was
// opened by another principal", which is false for the same user and
// sends her looking for someone else's session; it now says her roles
// changed and that she opens a new session, still without naming them.
func TestAStatefulSessionRefusesChangedRolesSayingSo(t *testing.T) {
	url := rolesServer(t)
	cs := openSession(t, url, "dev")
	version := cs.InitializeResult().ProtocolVersion
	code, body := rawCall(t, url, cs.ID(), version, "dev,admin")
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.Contains(t, body, "roles")
	assert.Contains(t, body, "open a new session")
	assert.NotContains(t, body, "another principal")
	assert.NotContains(t, body, "admin", "the refusal does not list roles")

	// A new session with the new roles runs with them.
	fresh := openSession(t, url, "dev,admin")
	res, err := fresh.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "principal=alice roles=dev,admin", resultText(res))
}
