package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
)

// blockingTransport is an HTTP transport whose round trips arrive on
// arrived and wait until release is closed.
type blockingTransport struct {
	arrived chan struct{}
	release chan struct{}
}

func (b *blockingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	b.arrived <- struct{}{}
	<-b.release
	return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// answer posts the client's answer to the server's request id through rt.
func answer(rt http.RoundTripper, id int) error {
	req, err := http.NewRequest(http.MethodPost, "http://mcp.example/", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)))
	if err != nil {
		return err
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// The SDK client answers each request of the server (ping, roots/list,
// sampling, elicitation) on a goroutine of its own, with a POST of its
// own, without a deadline (the answer's context ignores cancellation). A
// hostile HTTP server that sends pings and never takes the answers held
// one POST, its connection and its goroutines for each ping, for as long
// as the session lived: 3,000 ping events (200 KB) on one call's stream
// held 2,700 connections and 14,000 goroutines (the server's included)
// after the call had timed out, and more pings would run the process out
// of file descriptors. At most maxAnswersInFlight answers of one
// connection are in flight; the next is not sent (the SDK drops it, and
// the session goes on).
func TestAttackS26AnswersInFlightAreBounded(t *testing.T) {
	const n = 100
	next := &blockingTransport{arrived: make(chan struct{}, n), release: make(chan struct{})}
	rt := &watchRoundTripper{next: next, w: &taskWatch{}, answers: make(chan struct{}, maxAnswersInFlight), stop: context.Background()}
	sent, refused := make(chan error, n), make(chan error, n)
	for i := range n {
		go func() {
			if err := answer(rt, i); err != nil && strings.Contains(err.Error(), "answers") {
				refused <- err
			} else {
				sent <- err
			}
		}()
	}
	arrived, nrefused := 0, 0
	for arrived < n && arrived+nrefused < n {
		select {
		case <-next.arrived:
			arrived++
		case <-refused:
			nrefused++
		}
	}
	close(next.release)
	assert.Equal(t, maxAnswersInFlight, arrived, "answers sent to a server that takes none")
	assert.Equal(t, n-maxAnswersInFlight, nrefused)
	for range arrived {
		require.NoError(t, <-sent)
	}

	// The places come back once the answers are taken.
	go func() { <-next.arrived }()
	require.NoError(t, answer(rt, n), "no place came back")
}

// Over the wire: a hostile server sends a call's pings and never takes
// the answers. The call gets its result, no more than maxAnswersInFlight
// answers wait on the server, and Close returns: closing the session
// waits for the answers in flight, so it waited for as long as the server
// held them (for ever; here until the test's hang bound).
func TestAttackS26PingFloodHoldsFewAnswersAndCloseReturns(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "flood", Description: "f", InputSchema: openObject}, okHandler)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	var waiting, most, answers atomic.Int64
	stop := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		msg, err := jsonrpc.DecodeMessage(body)
		if _, ok := msg.(*jsonrpc.Response); ok && err == nil {
			answers.Add(1)
			n := waiting.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			select { // never taken
			case <-r.Context().Done():
			case <-stop:
			}
			waiting.Add(-1)
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || req.Method != "tools/call" {
			h.ServeHTTP(w, r)
			return
		}
		id, _ := json.Marshal(req.ID.Raw())
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 500 {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n\n", 1000+i)
		}
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n", id)
	}))
	defer func() { close(stop); hs.CloseClientConnections(); hs.Close() }()
	c, err := Connect(context.Background(), HTTP(hs.URL))
	require.NoError(t, err)
	tl, err := c.Tool("flood", tool.Spec{Name: "flood", Description: "f"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := tl.Run(ctx, tool.Call{ID: "c1", Name: "flood", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())

	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(60 * time.Second): // a hang bound, not a measure: Close returns at once
		t.Errorf("Close did not return while the server held %d answers", waiting.Load())
	}
	assert.Positive(t, answers.Load(), "the server's pings were answered")
	assert.LessOrEqual(t, most.Load(), int64(maxAnswersInFlight), "answers waiting on the server at once")
}
