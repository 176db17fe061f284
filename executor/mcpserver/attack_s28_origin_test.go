package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// evilOrigin is the origin of the page a user opens in a browser that
// also reaches the server.
const evilOrigin = "http://evil.example"

// crossSite is what a browser adds to a fetch a page at evilOrigin makes
// to another site: Origin and the fetch metadata headers, which a page
// cannot set or remove.
var crossSite = http.Header{
	"Origin":         {evilOrigin},
	"Sec-Fetch-Site": {"cross-site"},
	"Sec-Fetch-Mode": {"cors"},
	"Sec-Fetch-Dest": {"empty"},
}

// permissiveCORS is the CORS layer a host puts in front of the handler so
// that browser clients (MCP Inspector's direct connection, a web app) can
// reach it: it answers every preflight with yes and lets every page read
// the answers, as rs/cors' AllowAll does.
func permissiveCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			w.Header().Set("Access-Control-Allow-Headers", "*")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// browserRequest sends what a browser sends for a page's fetch: header
// (Origin, Sec-Fetch-*) with the MCP headers the page sets, and returns
// the status, the session header and the whole body.
func browserRequest(t *testing.T, method, url, session string, header http.Header, body string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get(sessionHeader), string(b)
}

const (
	initializeBody  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	callCountBody   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{}}}`
)

// countServer is a server of one tool, count, and the number of its runs.
func countServer(t *testing.T, opts ...Option) (*Server, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("count", "Count a call", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "ok", nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg), opts...)
	require.NoError(t, err)
	return s, &runs
}

// A page the user opens at http://evil.example POSTs a tools/call to the
// server on 127.0.0.1: its Host is the server's own, so the Host check
// (the SDK's on loopback, ours elsewhere) lets it through, and only the
// Origin and Sec-Fetch-Site headers the browser adds say it is another
// site's. Without a CORS layer the browser itself stops the page (the
// SDK requires Content-Type: application/json, which takes a preflight
// the handler does not answer), but a host that serves browser clients
// puts one in front (AllowAll, as the tutorials do), and then every page
// on the web ran the tools (go-sdk v1.8.0 applies no cross-origin check
// unless told to). The MCP transports (2025-06-18) say servers MUST
// validate Origin; such a request is now refused with 403 before any
// JSON-RPC is read, naming the header and WithAllowedOrigins. Checked for
// a page's whole stateful session too (initialize, then the call).
func TestAttackS28CrossSitePageCallsATool(t *testing.T) {
	s, runs := countServer(t)
	for _, mode := range []string{"stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			var opts []HTTPOption
			if mode == "stateful" {
				opts = append(opts, Stateful())
			}
			hs := httptest.NewServer(permissiveCORS(s.HTTPHandler(opts...)))
			defer hs.Close()
			defer hs.CloseClientConnections()

			// The preflight the browser sends first is the CORS layer's
			// to answer, and it says yes.
			status, _, _ := browserRequest(t, http.MethodOptions, hs.URL, "", http.Header{
				"Origin": {evilOrigin}, "Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"cors"},
				"Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"content-type,mcp-protocol-version"},
			}, "")
			require.Equal(t, http.StatusNoContent, status, "the CORS layer answers the preflight")

			runs.Store(0)
			session := ""
			if mode == "stateful" {
				status, sid, body := browserRequest(t, http.MethodPost, hs.URL, "", crossSite, initializeBody)
				if sid != "" {
					defer browserRequest(t, http.MethodDelete, hs.URL, sid, nil, "")
					status, _, _ = browserRequest(t, http.MethodPost, hs.URL, sid, crossSite, initializedBody)
					require.Less(t, status, 300)
					session = sid
				} else {
					assert.Equal(t, http.StatusForbidden, status, "%s", body)
				}
			}
			status, _, body := browserRequest(t, http.MethodPost, hs.URL, session, crossSite, callCountBody)
			assert.Zero(t, runs.Load(), "a page of another site ran the tool (status %d): %.300s", status, body)
			if assert.Equal(t, http.StatusForbidden, status, "%.300s", body) {
				assert.Contains(t, body, "Origin", "the refusal names the header")
				assert.Contains(t, body, evilOrigin, "the refusal names the origin")
				assert.Contains(t, body, "WithAllowedOrigins", "the refusal names the fix")
			}

			// A browser that sends no Sec-Fetch-Site (older than 2023)
			// still sends Origin, which names another host than Host.
			runs.Store(0)
			status, _, body = browserRequest(t, http.MethodPost, hs.URL, session, http.Header{"Origin": {evilOrigin}}, callCountBody)
			assert.Zero(t, runs.Load(), "an old browser's page of another site ran the tool")
			assert.Equal(t, http.StatusForbidden, status, "%.300s", body)
		})
	}
}
