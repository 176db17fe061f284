// Package interop_test drives toolbelt's MCP server with the official
// Inspector CLI and the TypeScript SDK's client, and toolbelt's MCP client
// against the reference "everything" server. The peers are pinned in
// package.json (installed with npm ci by .ci/run). Outside CI a missing
// node or node_modules skips these tests; under CI=true it fails them.
package interop_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/mcptool"
)

// need returns the path of node_modules/.bin/name (or node itself), or
// skips the test (fails it under CI=true).
func need(t *testing.T, name string) string {
	t.Helper()
	var p string
	if name == "node" {
		var err error
		p, err = exec.LookPath("node")
		if err != nil {
			p = ""
		}
	} else {
		p, _ = filepath.Abs(filepath.Join("node_modules", ".bin", name))
		if _, err := os.Stat(p); err != nil {
			p = ""
		}
	}
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: run npm ci in interop/", name)
		}
		t.Skipf("%s not installed: run npm ci in interop/", name)
	}
	return p
}

// server builds examples/mcp-server and returns its command line, serving
// a workspace with notes.txt ("hello"), over stdio.
func server(t *testing.T) []string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, "../examples/mcp-server").CombinedOutput()
	require.NoError(t, err, "%s", out)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello"), 0o644))
	return []string{bin, "-workspace", ws, "-engine", "process", "-audit", filepath.Join(t.TempDir(), "audit.jsonl")}
}

func inspector(t *testing.T, args ...string) string {
	t.Helper()
	bin := need(t, "mcp-inspector")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "inspector %v: %s", args, out)
	return string(out)
}

func TestInspectorCLIOverStdio(t *testing.T) {
	need(t, "node")
	srv := server(t)
	// "--": the server's own flags (-engine) are not the Inspector's.
	out := inspector(t, append([]string{"--method", "tools/list", "--"}, srv...)...)
	for _, name := range []string{"read_file", "list_directory", "write_file", "bash"} {
		assert.Contains(t, out, `"`+name+`"`)
	}
	out = inspector(t, append([]string{"--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt", "--"}, srv...)...)
	assert.Contains(t, out, "hello")
}

func TestInspectorCLIOverHTTP(t *testing.T) {
	need(t, "node")
	srv := server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cmd := exec.Command(srv[0], append(srv[1:], "-http", addr)...)
	// The server serves only clients that send its bearer token
	// (TOOLBELT_MCP_TOKEN); the Inspector sends it as a header.
	const token = "interop-test-token-0123456789abcdef"
	cmd.Env = append(os.Environ(), "TOOLBELT_MCP_TOKEN="+token)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Polled: the server is another process and says nothing once it
	// listens (its "serving" log line comes before ListenAndServe).
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "the server listens")
	url := "http://" + addr + "/mcp"
	bearer := "Authorization: Bearer " + token
	out := inspector(t, url, "--header", bearer, "--method", "tools/list")
	assert.Contains(t, out, `"read_file"`)
	out = inspector(t, url, "--header", bearer, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt")
	assert.Contains(t, out, "hello")
}

func TestTypeScriptSDKClient(t *testing.T) {
	node := need(t, "node")
	need(t, "mcp-inspector") // node_modules is installed
	srv := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, append([]string{"ts-client.mjs"}, srv...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got struct {
		Tools   []string `json:"tools"`
		Text    string   `json:"text"`
		IsError bool     `json:"isError"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(string(out))), &got), "%s", out)
	assert.Contains(t, got.Tools, "read_file")
	assert.Contains(t, got.Tools, "bash")
	assert.False(t, got.IsError)
	assert.Contains(t, got.Text, "hello")
}

// toolbelt's client against the reference server: its tools register, and
// calls run through the executor.
func TestOurClientAgainstEverythingServer(t *testing.T) {
	node := need(t, "node")
	everything := need(t, "mcp-server-everything")
	ctx := context.Background()
	c, err := mcptool.Connect(ctx, mcptool.Stdio(node, everything, "stdio"), mcptool.WithTerminateTimeout(2*time.Second))
	require.NoError(t, err)
	defer c.Close()
	tools, err := c.Tools(ctx)
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(tools...), "every tool of the reference server registers")
	require.Contains(t, reg.Names(), "echo")
	ex := executor.MustNew(reg)
	res, err := ex.Execute(ctx, tool.Call{ID: "e", Name: "echo", Args: json.RawMessage(`{"message":"interop"}`)})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "interop")
	res, _ = ex.Execute(ctx, tool.Call{ID: "a", Name: "echo", Args: json.RawMessage(`{}`)})
	require.NotNil(t, res.Error, "a missing required argument is refused")
}
