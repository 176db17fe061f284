package mcptool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pingFloodEnv makes the test binary a stdio server that, once
// initialised, sends floodPings pings and then a progress notification
// of the token floodDone, and never reads its stdin again.
const pingFloodEnv = "MCPTOOL_S27_PING_FLOOD"

const (
	floodPings = 10000
	floodDone  = "flood-done"
)

func init() {
	if os.Getenv(pingFloodEnv) != "1" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "server/discover": // a server of 2025-11-25, whose servers may ask things
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID)
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}`+"\n", m.ID)
		case "notifications/initialized":
			for i := range floodPings {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%q,"progress":1}}`+"\n", floodDone)
			_ = out.Flush()
			for { // stdin is read no more: the answers fill its pipe
				time.Sleep(time.Hour)
			}
		}
		_ = out.Flush()
	}
	os.Exit(0)
}

// A stdio server that sends pings and reads none of the answers: the SDK
// answers each ping on a goroutine of its own, whose write waits once the
// pipe to the server's stdin is full (64 KiB, some 1,500 answers), so
// every later ping held a goroutine, and its request, for as long as the
// session lived: 10,000 pings held some 8,300 goroutines, and a server
// that sent more held more; and Close, which waits for every answer
// being written, did not return. The answers now wait in a queue that
// one goroutine writes (answerQueue), bounded in bytes, and Close ends
// it. The progress notification the server sends after its pings is
// handled after every ping was taken up (the SDK hands the messages to
// their goroutines in order), so the goroutines are counted after all of
// them.
func TestAttackS27StdioPingFloodHoldsFewAnswers(t *testing.T) {
	base := held(t, nil, 0)
	done := make(chan struct{}, 1)
	c, err := Connect(context.Background(), Command(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), pingFloodEnv+"=1")
		return cmd
	}), WithTerminateTimeout(time.Second), OnLateProgress(func(p Progress) {
		if p.Token == floodDone {
			done <- struct{}{}
		}
	}))
	require.NoError(t, err)
	defer closeWithin(t, c, 30*time.Second)
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a hang bound, not a measure
		t.Fatal("the server's pings did not all arrive")
	}
	// The server's pings have all been taken up: their goroutines either
	// wait to write or are ending.
	const slack = 100 // the session's own goroutines and the process's
	h := held(t, &holdings{goroutines: base.goroutines + slack, fds: base.fds + 20, children: append(base.children, "server")}, 8*time.Second)
	t.Logf("%d pings unanswered by a stdio server: goroutines %d -> %d", floodPings, base.goroutines, h.goroutines)
	assert.LessOrEqual(t, h.goroutines, base.goroutines+slack, "goroutines held by the answers to a server that reads none")
}

// stuckConn is a connection whose writes wait until it is closed, as a
// pipe the server does not read.
type stuckConn struct {
	mcp.Connection
	closed chan struct{}
	writes chan struct{}
}

func (c *stuckConn) Write(context.Context, jsonrpc.Message) error {
	c.writes <- struct{}{}
	<-c.closed
	return io.ErrClosedPipe
}

// The answers waiting for a server that takes none hold at most
// maxQueuedAnswers bytes (and the one being written): the rest are not
// sent. Once the connection is closed none is queued.
func TestAnswerQueueIsBoundedInBytes(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	conn := &stuckConn{closed: make(chan struct{}), writes: make(chan struct{}, 1)}
	q := &answerQueue{conn: conn, stop: stop, ready: make(chan struct{}, 1)}
	ended := make(chan struct{})
	go func() { q.run(); close(ended) }()
	answer := func(i int) *jsonrpc.Response {
		id, err := jsonrpc.MakeID(float64(i))
		require.NoError(t, err)
		return &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}
	}
	q.put(answer(0))
	<-conn.writes // the first is being written, and waits
	data, err := jsonrpc.EncodeMessage(answer(100000))
	require.NoError(t, err)
	n := 2 * maxQueuedAnswers / len(data)
	for i := range n {
		q.put(answer(i + 1))
	}
	q.mu.Lock()
	queued, bytes := len(q.queue), q.bytes
	q.mu.Unlock()
	assert.LessOrEqual(t, bytes, maxQueuedAnswers, "bytes of answers held")
	assert.Less(t, queued, n, "every answer was queued")
	assert.Positive(t, queued)

	cancel()
	close(conn.closed)
	<-ended
	q.put(answer(0))
	q.mu.Lock()
	defer q.mu.Unlock()
	assert.Equal(t, queued, len(q.queue), "an answer was queued after the connection closed")
}
