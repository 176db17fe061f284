package mcpserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// lanIP is the address the test server's connections report as their
// local one (TEST-NET-1), as a server on a LAN address, or on 0.0.0.0
// reached through one, sees them.
const lanIP = "192.0.2.10"

// lanListener accepts on 127.0.0.1 and reports lanIP as each connection's
// local address: net/http puts that address in the request's context
// (http.LocalAddrContextKey), which is all a handler knows of where it
// listens.
type lanListener struct{ net.Listener }

func (l lanListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return lanConn{c}, nil
}

type lanConn struct{ net.Conn }

func (c lanConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP(lanIP), Port: c.Conn.LocalAddr().(*net.TCPAddr).Port}
}

// lanServer serves h over 127.0.0.1 as a server on lanIP, and returns its
// URL and port.
func lanServer(t *testing.T, h http.Handler) (string, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(h)
	hs.Listener = lanListener{ln}
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(hs.CloseClientConnections)
	return hs.URL, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// hostTransport sends every request with Host set to host, as a browser
// does for a page whose name was rebound to the server's address, and the
// headers given.
type hostTransport struct {
	host   string
	header http.Header
}

func (t hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = t.host
	for k, v := range t.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectAs connects the SDK's client to url with Host set to host, and
// calls the tool count; it returns the first error.
func connectAs(t *testing.T, url, host string, header http.Header) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "page", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: hostTransport{host, header}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}})
	if err != nil {
		return err
	}
	require.False(t, res.IsError, "%v", res.Content)
	return nil
}

// The SDK refuses a Host that is not a loopback name only when the
// connection came to a loopback address. A server that listens on a LAN
// address (or on 0.0.0.0, reached through one) and serves anonymous calls
// took them from any Host: a web page at rebound.example, whose name its
// owner then points at the server's address, is same-origin with the
// server in the user's browser and calls its tools (it sets any header,
// Content-Type: application/json included). Such a request is now refused
// with 403 before any JSON-RPC is read, naming the option that allows a
// name; the server's own address, names allowed by WithAllowedHosts, and
// requests with a verified bearer token are served.
func TestAttackS27RebindingToALANAddress(t *testing.T) {
	var runs atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("count", "Count a call", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "ok", nil
	}, tool.ReadOnly()))
	ex := executor.MustNew(reg)
	s, err := New(ex)
	require.NoError(t, err)

	for _, mode := range []string{"stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			var opts []HTTPOption
			if mode == "stateful" {
				opts = append(opts, Stateful())
			}
			url, port := lanServer(t, s.HTTPHandler(opts...))

			runs.Store(0)
			err := connectAs(t, url, "rebound.example:"+port, nil)
			if assert.Error(t, err, "a page on a rebound name called the tools") {
				assert.ErrorContains(t, err, "WithAllowedHosts", "the refusal names the fix")
				assert.ErrorContains(t, err, "rebound.example", "the refusal names the host")
			}
			assert.Zero(t, runs.Load(), "the tool ran for a rebound name")

			runs.Store(0)
			require.NoError(t, connectAs(t, url, lanIP+":"+port, nil), "the server's own address is served")
			assert.Equal(t, int32(1), runs.Load())
		})
	}

	t.Run("allowed names", func(t *testing.T) {
		s, err := New(ex, WithAllowedHosts("Tools.LAN"))
		require.NoError(t, err)
		url, port := lanServer(t, s.HTTPHandler())
		require.NoError(t, connectAs(t, url, "tools.lan:"+port, nil), "an allowed name is served, in any case")
		require.NoError(t, connectAs(t, url, lanIP+":"+port, nil), "the server's own address is served")
		err = connectAs(t, url, "rebound.example:"+port, nil)
		assert.ErrorContains(t, err, "WithAllowedHosts")
	})

	t.Run("any name", func(t *testing.T) {
		s, err := New(ex, WithAllowedHosts("*"))
		require.NoError(t, err)
		url, port := lanServer(t, s.HTTPHandler())
		require.NoError(t, connectAs(t, url, "behind-a-proxy.example:"+port, nil))
	})

	t.Run("verified bearer token", func(t *testing.T) {
		verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			if token != "good" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
		}
		s, err := New(ex, WithPrincipal(PrincipalFromToken()))
		require.NoError(t, err)
		url, port := lanServer(t, auth.RequireBearerToken(verify, nil)(s.HTTPHandler()))
		runs.Store(0)
		require.NoError(t, connectAs(t, url, "tools.example:"+port, http.Header{"Authorization": {"Bearer good"}}),
			"a request a token authenticates is no page's: a rebound page has no token")
		assert.Equal(t, int32(1), runs.Load())
	})

	t.Run("a header principal does not count", func(t *testing.T) {
		s, err := New(ex, WithPrincipal(PrincipalFromHeader("X-User", "")))
		require.NoError(t, err)
		url, port := lanServer(t, s.HTTPHandler())
		err = connectAs(t, url, "rebound.example:"+port, http.Header{"X-User": {"alice"}})
		assert.ErrorContains(t, err, "WithAllowedHosts", "a rebound page sets any header it likes")
	})
}

// On a loopback address the SDK's own check holds (a name that is not
// loopback is refused), with WithAllowedHosts or without, and loopback
// names are served either way.
func TestHostsOnLoopback(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("count", "Count a call", func(context.Context, struct{}) (string, error) { return "ok", nil }, tool.ReadOnly()))
	for _, opts := range [][]Option{nil, {WithAllowedHosts("tools.lan")}} {
		s, err := New(executor.MustNew(reg), opts...)
		require.NoError(t, err)
		hs := httptest.NewServer(s.HTTPHandler())
		_, port, err := net.SplitHostPort(hs.Listener.Addr().String())
		require.NoError(t, err)
		assert.NoError(t, connectAs(t, hs.URL, "localhost:"+port, nil), "loopback names are served on loopback")
		assert.NoError(t, connectAs(t, hs.URL, "127.0.0.1:"+port, nil), "the address is served")
		assert.Error(t, connectAs(t, hs.URL, "rebound.example:"+port, nil), "other names are refused on loopback")
		hs.Close()
	}
}

// WithAllowedHosts takes names alone, and says what is wrong with others.
func TestAllowedHostsRefusesWhatIsNotAName(t *testing.T) {
	ex := executor.MustNew(registry.New())
	for _, tc := range []struct{ host, want string }{
		{"tools.lan:8080", "has a port"},
		{"", "is not a host name"},
		{"http://tools.lan", "is not a host name"},
	} {
		_, err := New(ex, WithAllowedHosts(tc.host))
		assert.ErrorContains(t, err, tc.want, "%q", tc.host)
	}
	_, err := New(ex, WithAllowedHosts("tools.lan", "[fe80::1]", "10.0.0.5", "*"))
	assert.NoError(t, err)
}
