package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// batch is a JSON-RPC batch of n tools/call requests of the tool count
// and one ping.
func batch(n int) string {
	msgs := []string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`}
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{}}}`, i))
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// post sends body to url as a client of revision 2025-03-26 (the last
// with batches, and what the SDK takes a request without the version
// header for) and returns the status and the whole response.
func post(t *testing.T, url, session, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// A JSON-RPC batch (MCP 2025-03-26, which the SDK serves to any request
// that names that revision or none) is one HTTP request whose every
// message the SDK runs on a goroutine of its own, each holding its answer
// until it is written to the response. The bound on calls in progress
// counts a request until its handler returns, not while its answer waits:
// one 3 MiB POST of 62,000 tools/list requests, its response left unread,
// held some 6,000 goroutines and 270 MB of heap after 3 s (70,000 pings:
// 15,000 goroutines), for as long as the client kept the connection, and
// a handful of such requests would end the process. A batch of more than
// maxBatch messages is refused before any of them runs; a small one is
// served as before.
func TestAttackS26BatchFloodIsRefused(t *testing.T) {
	var runs atomic.Int32
	reg := registry.New()
	reg.MustRegister(tool.Func("count", "Count a call", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "ok", nil
	}, tool.ReadOnly()))
	s, err := New(executor.MustNew(reg))
	require.NoError(t, err)
	for _, mode := range []string{"stateless", "stateful"} {
		t.Run(mode, func(t *testing.T) {
			var opts []HTTPOption
			if mode == "stateful" {
				opts = append(opts, Stateful())
			}
			hs := httptest.NewServer(s.HTTPHandler(opts...))
			defer hs.Close()
			defer hs.CloseClientConnections()
			session := ""
			if mode == "stateful" {
				req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"m","version":"1"}}}`))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				session = resp.Header.Get(sessionHeader)
				require.NotEmpty(t, session)
				defer func() { // end the session, and its goroutines
					del, err := http.NewRequest(http.MethodDelete, hs.URL, nil)
					require.NoError(t, err)
					del.Header.Set(sessionHeader, session)
					resp, err := http.DefaultClient.Do(del)
					require.NoError(t, err)
					resp.Body.Close()
				}()
				status, _ := post(t, hs.URL, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				require.Less(t, status, 300)
			}

			runs.Store(0)
			status, body := post(t, hs.URL, session, batch(500))
			if assert.Equal(t, http.StatusBadRequest, status, "a batch of 501 messages was served: %.200s", body) {
				assert.Contains(t, body, "batch")
			}
			assert.Zero(t, runs.Load(), "calls of the batch ran")

			runs.Store(0)
			status, body = post(t, hs.URL, session, batch(2))
			require.Equal(t, http.StatusOK, status, "%s", body)
			assert.Equal(t, int32(2), runs.Load(), "a small batch is served: %s", body)
			assert.Contains(t, body, `"id":"p"`)
		})
	}
}
