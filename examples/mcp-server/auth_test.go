package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestAttackS30HTTPServesAnonymousClients: over -http the server offers
// bash and the file tools, and approves risky calls by asking the client
// that made them (elicitation). A client that anyone on the machine can
// open (any local user or process, or anyone on the network when -http
// names a LAN address) must therefore prove it was given the endpoint: a
// request without the run's bearer token is refused, one with it is
// served.
func TestAttackS30HTTPServesAnonymousClients(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	// A free loopback port for the server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	const token = "s30-test-token-0123456789abcdef"
	cmd := exec.Command(bin, "-workspace", t.TempDir(), "-engine", "process",
		"-audit", filepath.Join(t.TempDir(), "a.jsonl"), "-http", addr, "-v")
	cmd.Env = append(cmd.Environ(), TokenEnv+"="+token)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	var seen strings.Builder
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "serving MCP") {
			break
		}
	}
	require.Contains(t, seen.String(), "serving MCP")
	assert.NotContains(t, seen.String(), token, "a token the user chose is never printed")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	post := func(bearer string) int {
		t.Helper()
		var res *http.Response
		// The server logs "serving MCP" just before it accepts; a
		// connection refused can only come from a server a moment slower.
		for range 1000 {
			req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(initializeRequest))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if bearer != "" {
				req.Header.Set("Authorization", "Bearer "+bearer)
			}
			if res, err = http.DefaultClient.Do(req); err == nil {
				break
			}
		}
		require.NotNil(t, res, "the server never answered")
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res.StatusCode
	}
	defer http.DefaultClient.CloseIdleConnections()
	assert.Equal(t, http.StatusUnauthorized, post(""), "a client without the token is refused")
	assert.Equal(t, http.StatusUnauthorized, post("not-the-token"), "a client with another token is refused")
	assert.Equal(t, http.StatusOK, post(token), "the client given the token is served")
}

// Without TOOLBELT_MCP_TOKEN the server makes a token for the run and
// prints it once on stderr, for the person who started it; the address
// it listens on (here a port the kernel chose) is logged after it listens.
func TestHTTPMakesATokenWhenNoneIsGiven(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(bin, "-workspace", t.TempDir(), "-engine", "process",
		"-audit", filepath.Join(t.TempDir(), "a.jsonl"), "-http", "127.0.0.1:0", "-v")
	cmd.Env = append(cmd.Environ(), TokenEnv+"=")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	var token, url string
	sc := bufio.NewScanner(stderr)
	for url == "" && sc.Scan() {
		line := sc.Text()
		if _, after, ok := strings.Cut(line, "Authorization: Bearer "); ok {
			token, _, _ = strings.Cut(after, `"`)
		}
		if _, after, ok := strings.Cut(line, "url="); ok && strings.Contains(line, "serving MCP") {
			url, _, _ = strings.Cut(after, " ")
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	require.Len(t, token, 43, "a 32-byte token, base64url")
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)

	post := func(bearer string) int {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeRequest))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res.StatusCode
	}
	defer http.DefaultClient.CloseIdleConnections()
	assert.Equal(t, http.StatusUnauthorized, post(""))
	assert.Equal(t, http.StatusOK, post(token))
}
