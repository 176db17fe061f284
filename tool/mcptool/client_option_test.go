package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientInfoTool adds a tool to f's server that answers with the client
// name and version the session was initialised with.
func clientInfoTool(f *fixture) {
	f.srv.AddTool(&mcp.Tool{Name: "client_info", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ci := req.Session.InitializeParams().ClientInfo
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ci.Name + " " + ci.Version}}}, nil
	})
}

// WithImplementation is the client name and version the server sees at
// initialisation; without it, "toolbelt v1".
func TestWithImplementationNamesTheClient(t *testing.T) {
	f := newFixture(0)
	clientInfoTool(f)
	ex, _ := executorFor(t, connectInMemory(t, f, WithImplementation("acme-agent", "v3.2.1")))
	res := run(t, ex, "client_info", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "acme-agent v3.2.1", res.Text())

	f2 := newFixture(0)
	clientInfoTool(f2)
	ex, _ = executorFor(t, connectInMemory(t, f2))
	res = run(t, ex, "client_info", `{}`)
	require.True(t, res.OK(), "%v", res.Error)
	assert.Equal(t, "toolbelt v1", res.Text())
}

// syncBuffer is a bytes.Buffer the process's stderr copier and the test
// can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// noisyFixture is the fixture stdio server behind a shell that writes a
// line to stderr first.
func noisyFixture() *exec.Cmd {
	cmd := exec.Command("sh", "-c", `echo "fixture stderr: starting" >&2; exec "$0" -test.run='^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), fixtureEnv+"=1")
	return cmd
}

// WithStderr receives what a Stdio server writes to its stderr.
func TestWithStderrReceivesTheServersStderr(t *testing.T) {
	var buf syncBuffer
	c, err := Connect(context.Background(), Command(noisyFixture), WithStderr(&buf), WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	ex, _ := executorFor(t, c)
	res := run(t, ex, "echo", `{"text":"hi"}`)
	require.True(t, res.OK(), "%v", res.Error)
	// A poll: the line comes from the server process's stderr, copied by the SDK's command, which signals nothing.
	require.Eventually(t, func() bool { return strings.Contains(buf.String(), "fixture stderr: starting\n") }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, c.Close())
	assert.Equal(t, "fixture stderr: starting\n", buf.String(), "the server's stderr, and nothing of the protocol")
}
