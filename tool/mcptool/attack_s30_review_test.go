package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reviewEntries is the size of the pages these attacks list: ten times
// the tools a listing reads, some 320 MB for the SDK to decode (32 KB an
// entry), 30 KB on the wire.
const reviewEntries = 10 * maxListing

// httpFramed serves a real server over streamable HTTP (stateless, JSON
// answers), except that a tools/list is answered by answer, which writes
// the JSON-RPC answer text (the page under its id) as it likes.
func httpFramed(t *testing.T, page json.RawMessage, answer func(w http.ResponseWriter, text string)) Target {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		msg, err := jsonrpc.DecodeMessage(body)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || req.Method != "tools/list" {
			h.ServeHTTP(w, r)
			return
		}
		id, _ := json.Marshal(req.ID.Raw())
		answer(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, page))
	}))
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	return HTTP(hs.URL)
}

// httpStandalone serves a hand-made stateful server over streamable HTTP
// that answers a tools/list on its standalone event stream (the GET the
// SDK opens when the client answers roots, sampling or elicitation), and
// holds the tools/list POST's own stream open without an answer.
func httpStandalone(t *testing.T, page json.RawMessage) Target {
	events := make(chan string, 4)
	done := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flush := func() {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			flush()
			for {
				select {
				case ev := <-events:
					_, _ = io.WriteString(w, "event: message\ndata: "+ev+"\n\n")
					flush()
				case <-r.Context().Done():
					return
				case <-done:
					return
				}
			}
		case http.MethodDelete:
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg, err := jsonrpc.DecodeMessage(body)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		id, _ := json.Marshal(req.ID.Raw())
		w.Header().Set("Mcp-Session-Id", "s1")
		switch req.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`, id)
		case "tools/list":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, page)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			flush()
			select {
			case <-r.Context().Done():
			case <-done:
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, id)
		}
	}))
	t.Cleanup(func() { close(done); hs.CloseClientConnections(); hs.Close() })
	return HTTP(hs.URL)
}

// The bound on a tools/list page (82cdfb9) read the page only where this
// package's HTTP watch expected it: the answer of the POST that asked,
// status 200, parsed as an event stream by rules of its own. The SDK
// takes an answer from any stream of the connection, any 2xx status, and
// trims a data line's value (bytes.TrimSpace) and skips an event named
// other than "message" by its own rules. A page of 10,000 entries framed
// so the watch missed it was decoded whole (some 320 MB allocated).
func TestAttackS30ReviewListingFramedOtherwiseIsRefused(t *testing.T) {
	page := json.RawMessage(`{"tools":` + manyEmpty(reviewEntries) + `}`)
	stream := func(frame string) func(http.ResponseWriter, string) {
		return func(w http.ResponseWriter, text string) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = fmt.Fprintf(w, frame, text)
		}
	}
	for name, target := range map[string]func() (Target, []Option){
		"stream, a data line ending in a form feed": func() (Target, []Option) {
			return httpFramed(t, page, stream("event: message\ndata: %s\f\n\n")), nil
		},
		"stream, an event ended by CR CR LF": func() (Target, []Option) {
			return httpFramed(t, page, stream("data: %s\n\r\r\ndata: x\n\n")), nil
		},
		"stream, an event the SDK skips answers first": func() (Target, []Option) {
			return httpFramed(t, page, func(w http.ResponseWriter, text string) {
				var msg struct{ ID json.RawMessage }
				_ = json.Unmarshal([]byte(text), &msg)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = fmt.Fprintf(w, "event: other\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\n\ndata: %s\n\n", msg.ID, text)
			}), nil
		},
		"json, status 203": func() (Target, []Option) {
			return httpFramed(t, page, func(w http.ResponseWriter, text string) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNonAuthoritativeInfo)
				_, _ = io.WriteString(w, text)
			}), nil
		},
		"the standalone stream answers": func() (Target, []Option) {
			return httpStandalone(t, page), []Option{WithRoots(&mcp.Root{URI: "file:///tmp"})} //lint:ignore SA1019 roots (deprecated by SEP-2577) are what makes the client open the standalone stream
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			target, opts := target()
			c, err := Connect(ctx, target, opts...)
			require.NoError(t, err)
			defer c.Close()
			alloc := allocated(func() { _, err = c.Tools(ctx) })
			t.Logf("allocated %d bytes for a %d-byte page (err %v)", alloc, len(page), err)
			require.Error(t, err)
			assert.Less(t, alloc, uint64(64*len(page)+8<<20), "allocated %d bytes", alloc)
		})
	}
}
