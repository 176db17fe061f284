package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// taskExecution is what taskServer's tools/list says about each tool's
// execution (MCP 2025-11-25). The SDK's server cannot send the field, so
// it is added on the wire (withExecution), as a 2025-11-25 server sends it.
var taskExecution = map[string]string{
	"optional":  "optional",
	"forbidden": "forbidden",
	"required":  "required",
}

// taskServer is an official-SDK server with one tool per kind of task
// support; each answers with its own name.
func taskServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v0"}, nil)
	for _, name := range []string{"plain", "optional", "forbidden", "required"} {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Answer " + name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	return srv
}

// withExecution adds taskExecution to the tools of a tools/list result
// (any other result is returned as it is; so is one it cannot rewrite,
// which the tests then notice as a tool not hidden).
func withExecution(result json.RawMessage) json.RawMessage {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r["tools"] == nil {
		return result
	}
	var tools []map[string]any
	if json.Unmarshal(r["tools"], &tools) != nil {
		return result
	}
	for _, tl := range tools {
		name, _ := tl["name"].(string)
		if ts, ok := taskExecution[name]; ok {
			tl["execution"] = map[string]any{"taskSupport": ts}
		}
	}
	var err error
	if r["tools"], err = json.Marshal(tools); err != nil {
		return result
	}
	out, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return out
}

// withExecutionMessage is withExecution on one encoded JSON-RPC message.
func withExecutionMessage(data []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return data
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil {
		r.Result = withExecution(r.Result)
		if out, err := jsonrpc.EncodeMessage(r); err == nil {
			return out
		}
	}
	return data
}

// executionTransport is a server transport whose tools/list results carry
// taskExecution.
type executionTransport struct{ mcp.Transport }

func (tr executionTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := tr.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return executionConn{Connection: c}, nil
}

type executionConn struct{ mcp.Connection }

func (c executionConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil {
		r.Result = withExecution(r.Result)
	}
	return c.Connection.Write(ctx, msg)
}

// executionHandler serves h, adding taskExecution to the responses to
// tools/list, in JSON and in event-stream bodies alike.
func executionHandler(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		r.Body = io.NopCloser(bytes.NewReader(body))
		msg, err := jsonrpc.DecodeMessage(body)
		if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "tools/list" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		out := rec.Body.Bytes()
		mt, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		switch mt {
		case "application/json":
			out = withExecutionMessage(out)
		case "text/event-stream":
			var b bytes.Buffer
			for line := range bytes.Lines(out) {
				if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
					b.WriteString("data: ")
					b.Write(withExecutionMessage(bytes.TrimSpace(data)))
					b.WriteString("\n")
					continue
				}
				b.Write(line)
			}
			out = b.Bytes()
		default:
			t.Errorf("tools/list answered with Content-Type %q", mt)
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	})
}

// taskCommand starts this test binary as taskServer on stdio.
func taskCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fixtureEnv+"=tasks")
	return cmd
}

// Tools a client without task support cannot call (execution.taskSupport
// "required") are left out and reported; the others, whatever their task
// support, are imported and callable. Over every kind of transport, since
// the field is read off the wire in two different places.
func TestToolsRequiringTasksAreHiddenAndReported(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect func(t *testing.T) *Client
	}{
		{"in-memory", func(t *testing.T) *Client {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := taskServer().Connect(context.Background(), executionTransport{st}, nil)
			require.NoError(t, err)
			c, err := Connect(context.Background(), Transport(ct))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close(); _ = ss.Wait() })
			return c
		}},
		{"stdio", func(t *testing.T) *Client {
			c, err := Connect(context.Background(), Command(taskCommand), WithTerminateTimeout(2*time.Second))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			return c
		}},
		{"http-sse", func(t *testing.T) *Client { return connectHTTP(t, &mcp.StreamableHTTPOptions{}) }},
		{"http-json", func(t *testing.T) *Client { return connectHTTP(t, &mcp.StreamableHTTPOptions{JSONResponse: true}) }},
		{"http-stateless", func(t *testing.T) *Client { return connectHTTP(t, &mcp.StreamableHTTPOptions{Stateless: true}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.connect(t)
			tools, err := c.Tools(context.Background())
			require.NoError(t, err)
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Spec().Name)
			}
			sort.Strings(names)
			assert.Equal(t, []string{"forbidden", "optional", "plain"}, names)

			skipped := c.Skipped()
			require.Len(t, skipped, 1)
			assert.Equal(t, "required", skipped[0].Remote)
			assert.Contains(t, skipped[0].Reason, `execution.taskSupport is "required"`)

			reg := registry.New()
			require.NoError(t, reg.Register(tools...))
			ex := executor.MustNew(reg)
			for _, name := range names {
				res, _ := ex.Execute(context.Background(), tool.Call{ID: name, Name: name, Args: json.RawMessage(`{}`)})
				require.NotNil(t, res)
				require.True(t, res.OK(), "%s: %v", name, res.Error)
				assert.Equal(t, name, res.Text())
			}

			// Asked for by name, the hidden tool is still wrapped (the
			// caller takes responsibility for it).
			_, err = c.Tool("required", tool.Spec{Description: "Answer required"})
			assert.NoError(t, err)
		})
	}
}

func connectHTTP(t *testing.T, opts *mcp.StreamableHTTPOptions) *Client {
	srv := taskServer()
	hs := httptest.NewServer(executionHandler(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)))
	c, err := Connect(context.Background(), HTTP(hs.URL))
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.Close()
		hs.CloseClientConnections()
		hs.Close()
	})
	return c
}

// A tool whose task support changes between listings follows the latest
// listing, and Skipped describes the latest Tools call.
func TestSkippedFollowsTheLatestListing(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := taskServer().Connect(context.Background(), executionTransport{st}, nil)
	require.NoError(t, err)
	c, err := Connect(context.Background(), Transport(ct))
	require.NoError(t, err)
	defer func() { _ = c.Close(); _ = ss.Wait() }()

	assert.Empty(t, c.Skipped(), "nothing listed yet")
	_, err = c.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, c.Skipped(), 1)

	c.tasks.note(json.RawMessage(`{"tools":[{"name":"required","execution":{"taskSupport":"optional"}}]}`))
	assert.Equal(t, "optional", c.tasks.taskSupport("required"))
	c.tasks.note(json.RawMessage(`{"tools":[{"name":"required","execution":"not an object"},{"execution":{"taskSupport":"required"}}]}`))
	assert.Equal(t, "", c.tasks.taskSupport("required"), "a malformed execution means no task support")
	_, err = c.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, c.Skipped(), 1, "the new listing says required again")
}

// Tools whose schemas the registry would refuse are left out and
// reported, so the rest register and run; nothing is dropped silently.
func TestToolsTheRegistryWouldRefuseAreReported(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "odd", Version: "v0"}, nil)
	add := func(name string, in, out any) {
		srv.AddTool(&mcp.Tool{Name: name, Description: "Tool " + name, InputSchema: in, OutputSchema: out},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	add("fine", map[string]any{"type": "object"}, nil)
	add("bad_pattern", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`), nil)
	add("remote_ref", json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`), nil)
	add("bad_output", map[string]any{"type": "object"}, json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}}}`))
	add("", map[string]any{"type": "object"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	var log lockedBuffer
	c, err := Connect(context.Background(), Transport(ct), WithLogger(slog.New(slog.NewJSONHandler(&log, nil))))
	require.NoError(t, err)
	defer func() { _ = c.Close(); _ = ss.Wait() }()

	tools, err := c.Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, "fine", tools[0].Spec().Name)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...))

	got := map[string]string{}
	for _, s := range c.Skipped() {
		got[s.Remote] = s.Reason
	}
	require.Len(t, got, 4, "%v", got)
	assert.Contains(t, got[""], "no name")
	assert.Contains(t, got["bad_pattern"], "inputSchema is refused")
	assert.Contains(t, got["remote_ref"], "inputSchema is refused")
	assert.Contains(t, got["remote_ref"], "remote references are not loaded")
	assert.Contains(t, got["bad_output"], "outputSchema is refused")
	for name := range got {
		assert.Contains(t, log.String(), fmt.Sprintf(`"tool":%q`, name), "each left-out tool is logged")
	}
}

// lockedBuffer is a log destination safe for the SDK's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
