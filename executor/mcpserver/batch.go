package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// maxBatch is how many messages one JSON-RPC batch (MCP 2025-03-26; later
// revisions have none) may hold over HTTP. A client batches the few
// messages it has at one moment (an answer and a notification), while the
// SDK runs every request of a batch on a goroutine of its own at once,
// each holding its answer until the client reads it: a 3 MiB batch is
// some 60,000 requests, and the bound on calls in progress counts a
// request only until its handler returns.
const maxBatch = 16

// batchBound refuses a POST whose body is a JSON-RPC batch of more than
// maxBatch messages, before the SDK runs any of them. Anything else (a
// single message, a body over the SDK's size limit, one that is not JSON)
// is passed on as it came, for the SDK to serve or refuse.
type batchBound struct {
	next  http.Handler
	limit int64 // the SDK's MaxRequestBodyBytes; <= 0: none
}

// readCloser reads from one reader and closes another (the request's body).
type readCloser struct {
	io.Reader
	io.Closer
}

func (b batchBound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		b.next.ServeHTTP(w, r)
		return
	}
	br := bufio.NewReader(r.Body)
	r.Body = readCloser{br, r.Body}
	if !opensArray(br) {
		b.next.ServeHTTP(w, r)
		return
	}
	rd := io.Reader(br)
	if b.limit > 0 {
		rd = io.LimitReader(br, b.limit+1)
	}
	data, err := io.ReadAll(rd)
	// The SDK reads the body again: what was read comes first, and the
	// rest (past the limit, or after a failed read) is the SDK's to report.
	r.Body = readCloser{io.MultiReader(bytes.NewReader(data), br), r.Body}
	var msgs []json.RawMessage
	if err == nil && (b.limit <= 0 || int64(len(data)) <= b.limit) && json.Unmarshal(data, &msgs) == nil && len(msgs) > maxBatch {
		http.Error(w, fmt.Sprintf("Bad Request: a JSON-RPC batch of %d messages: this server takes at most %d in one request, as each runs at once; send the rest in other requests", len(msgs), maxBatch), http.StatusBadRequest)
		return
	}
	b.next.ServeHTTP(w, r)
}

// opensArray reports whether the JSON text br holds begins with '[' (a
// batch), reading only the white space before it.
func opensArray(br *bufio.Reader) bool {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return false
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		_ = br.UnreadByte()
		return c == '['
	}
}
