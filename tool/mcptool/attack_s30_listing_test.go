package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocated returns the bytes allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// manyEmpty is a JSON array of n empty objects.
func manyEmpty(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]"
}

// rawListing serves, over in-memory transports, a server that answers
// every tools/list with page.
func rawListing(t *testing.T, page json.RawMessage) Target {
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	conn, err := st.Connect(ctx)
	require.NoError(t, err)
	served := make(chan struct{})
	go func() {
		defer close(served)
		rawServer(t, conn)
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				res := &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
				if req.Method == "tools/list" {
					res.Result = page
				}
				if conn.Write(ctx, res) != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() { _ = conn.Close(); <-served })
	return Transport(ct)
}

// httpListing serves a real server over streamable HTTP, except that a
// tools/list is answered with page, as a JSON body or as an event stream.
func httpListing(t *testing.T, page json.RawMessage, stream bool) Target {
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
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, page)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+answer+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	return HTTP(hs.URL)
}

// A tools/list page of a quarter of a million "{}" entries (768 KiB)
// made the client allocate some 8 GB before Tools counted one (200,000
// entries are used here, under the bound on a message's elements that
// TestAttackS30StructuredContentOfManyElementsIsRefused adds): the SDK
// decodes each entry into an mcp.Tool and re-encodes and decodes its
// input schema, some 32 KB each whatever its size (a million entries, 3
// MiB: 35 GB, 24 s, which no deadline ends). A page is read entry by
// entry before the SDK sees it, and one of more than 1,000 tools (more
// than a listing reads) is not handed to it: the listing fails.
func TestAttackS30ListingOfManyEntriesIsNotDecoded(t *testing.T) {
	page := json.RawMessage(`{"tools":` + manyEmpty(200_000) + `}`)
	for name, target := range map[string]func() Target{
		"in-memory":   func() Target { return rawListing(t, page) },
		"http json":   func() Target { return httpListing(t, page, false) },
		"http stream": func() Target { return httpListing(t, page, true) },
		// encoding/json takes "TOOLS" for "tools", and the last of
		// repeated members.
		"in-memory, a key spelt otherwise": func() Target {
			return rawListing(t, json.RawMessage(`{"tools":[],"TOOLS":`+manyEmpty(200_000)+`}`))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c, err := Connect(ctx, target())
			require.NoError(t, err)
			defer c.Close()
			alloc := allocated(func() { _, err = c.Tools(ctx) })
			t.Logf("allocated %d bytes for a %d-byte page (err %v)", alloc, len(page), err)
			require.Error(t, err)
			if name != "http stream" { // the SDK's error for a broken stream does not quote the cause
				assert.Contains(t, err.Error(), "more than 1000 tools")
			}
			assert.Less(t, alloc, uint64(64*len(page)+8<<20), "allocated %d bytes", alloc)
		})
	}
}

// A page of 1,000 tools is still read, and so is a listing of 1,000
// tools over pages.
func TestListingOfAThousandToolsIsRead(t *testing.T) {
	var entries []string
	for i := range maxListing {
		entries = append(entries, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i))
	}
	page := json.RawMessage(`{"tools":[` + strings.Join(entries, ",") + `]}`)
	for name, target := range map[string]Target{
		"in-memory":   rawListing(t, page),
		"http json":   httpListing(t, page, false),
		"http stream": httpListing(t, page, true),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := Connect(context.Background(), target)
			require.NoError(t, err)
			defer c.Close()
			tools, err := c.Tools(context.Background())
			require.NoError(t, err)
			assert.Len(t, tools, maxListing)
		})
	}
}
