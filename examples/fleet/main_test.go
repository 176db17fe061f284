package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres/pgtest"
)

// testSecret is the FLEET_SECRET of the tests' servers.
const testSecret = "fleet-test-secret-0123456789abcdef"

// bearerTransport sends a bearer token on every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func dial(ctx context.Context, url string, rt http.RoundTripper) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt},
		DisableStandaloneSSE: true}, nil)
}

// connect connects as user, with the token `fleet token -user` prints.
func connect(t *testing.T, ctx context.Context, bin, url, user string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "token", "-user", user)
	cmd.Env = append(cmd.Environ(), SecretEnv+"="+testSecret)
	out, err := cmd.Output()
	require.NoError(t, err)
	cs, err := dial(ctx, url, bearerTransport{strings.TrimSpace(string(out))})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// server is one `fleet serve` process.
type server struct {
	cmd *exec.Cmd
	url string
}

func startServer(t *testing.T, bin, dsn string) *server {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-db", dsn, "-addr", "127.0.0.1:0")
	cmd.Env = append(cmd.Environ(), SecretEnv+"="+testSecret)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	s := &server{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		assert.ErrorIs(t, syscall.Kill(cmd.Process.Pid, 0), syscall.ESRCH, "the server process is gone")
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	s.url = strings.TrimSpace(strings.TrimPrefix(line, "serving "))
	require.True(t, strings.HasPrefix(s.url, "http://127.0.0.1:"), line)
	return s
}

func fleet(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	require.NoError(t, err, "fleet %v: %s", args, out)
	return string(out)
}

// Two servers and a reviewer, three processes over one database: the rate
// limit is exact across the servers, and a deploy waiting on one server is
// decided by the reviewer.
func TestFleetEndToEnd(t *testing.T) {
	pg, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrMissing) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer pg.Stop()
	ctx := context.Background()
	dsn, err := pg.CreateDatabase(ctx, "fleet")
	require.NoError(t, err)

	bin := filepath.Join(t.TempDir(), "fleet")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	assert.Contains(t, fleet(t, bin, "migrate", "-db", dsn), "migrated")
	a, b := startServer(t, bin, dsn), startServer(t, bin, dsn)
	alice := []*mcp.ClientSession{connect(t, ctx, bin, a.url, "alice"), connect(t, ctx, bin, b.url, "alice")}

	// 5 messages per hour per user, over the whole fleet.
	sent, limited := 0, 0
	for i := range 8 {
		res, err := alice[i%2].CallTool(ctx, &mcp.CallToolParams{Name: "send_message", Arguments: map[string]any{"to": "bob", "text": fmt.Sprint(i)}})
		require.NoError(t, err)
		if res.IsError {
			assert.Contains(t, text(res), "rate limit 5/hour")
			limited++
		} else {
			sent++
		}
	}
	assert.Equal(t, 5, sent)
	assert.Equal(t, 3, limited)

	// A deploy on server A waits; the reviewer, a third process, decides it.
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := alice[0].CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}})
		if err != nil {
			t.Errorf("deploy: %v", err)
		}
		done <- res
	}()
	var pending map[string]any
	// Polled: server A, another process, puts the request in the database,
	// which announces puts nowhere (NOTIFY is sent for decisions only).
	require.Eventually(t, func() bool {
		out := strings.TrimSpace(fleet(t, bin, "pending", "-db", dsn))
		return out != "" && json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &pending) == nil
	}, 20*time.Second, 50*time.Millisecond)
	assert.Equal(t, "deploy", pending["tool"])
	assert.Equal(t, "alice", pending["user"])
	id, since := pending["id"].(string), pending["since"].(string)
	assert.Contains(t, fleet(t, bin, "decide", "-db", dsn, "-id", id, "-since", since, "-approve", "-as", "carol"), "approve by carol")

	select {
	case res := <-done:
		require.NotNil(t, res)
		assert.False(t, res.IsError, text(res))
		assert.Contains(t, text(res), "deployed to prod")
	case <-time.After(20 * time.Second):
		t.Fatal("the deploy did not complete after the reviewer approved it")
	}
	out, err := exec.Command(bin, "decide", "-db", dsn, "-id", id, "-since", since, "-deny", "late").CombinedOutput()
	assert.Error(t, err, "an approval is decided once")
	assert.Contains(t, string(out), "no pending request")
}
