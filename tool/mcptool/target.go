package mcptool

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Target says how to reach an MCP server. Build one with Stdio, Command,
// HTTP or Transport. A Client dials its target again after the server died,
// so a target describes how to start a connection, not one connection.
type Target struct {
	desc string
	dial func(ctx context.Context, o *options) (mcp.Transport, *exec.Cmd, error)
}

// String describes the target for error messages: the command line or URL.
func (t Target) String() string { return t.desc }

// Stdio is a server started as a subprocess (command and arguments) that
// speaks MCP on its stdin and stdout. The process runs in its own process
// group; Close (and a reconnect) ends the whole group. The server's stderr
// is discarded unless WithStderr is given.
func Stdio(command string, args ...string) Target {
	args = append([]string(nil), args...)
	return Command(func() *exec.Cmd { return exec.Command(command, args...) })
}

// Command is Stdio for a command that needs more setup (environment,
// working directory): fn returns a fresh, unstarted *exec.Cmd each time the
// client (re)connects. Leave Stdin and Stdout unset; the transport uses them.
func Command(fn func() *exec.Cmd) Target {
	desc := "command"
	if fn != nil {
		if c := fn(); c != nil {
			desc = strings.Join(c.Args, " ")
		}
	}
	return Target{desc: desc, dial: func(_ context.Context, o *options) (mcp.Transport, *exec.Cmd, error) {
		if fn == nil {
			return nil, nil, errors.New("mcptool: Command target has a nil function: pass a func returning an *exec.Cmd")
		}
		cmd := fn()
		if cmd == nil {
			return nil, nil, errors.New("mcptool: Command target returned a nil *exec.Cmd")
		}
		if cmd.Stdin != nil || cmd.Stdout != nil {
			return nil, nil, errors.New("mcptool: Command target: leave Stdin and Stdout unset, the MCP transport owns them")
		}
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		// Own process group, so Close can end the server and anything it
		// started in one kill.
		cmd.SysProcAttr.Setpgid = true
		if cmd.Stderr == nil && o.stderr != nil {
			cmd.Stderr = o.stderr
		}
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: o.terminate}, cmd, nil
	}}
}

// HTTP is a server reached over the streamable HTTP transport at url. Use
// WithHTTPClient for headers, TLS or authentication.
func HTTP(url string) Target {
	return Target{desc: url, dial: func(_ context.Context, o *options) (mcp.Transport, *exec.Cmd, error) {
		if url == "" {
			return nil, nil, errors.New("mcptool: HTTP target has an empty URL: pass the server's endpoint, such as http://127.0.0.1:8080/mcp")
		}
		return &mcp.StreamableClientTransport{
			Endpoint:   url,
			HTTPClient: o.httpClient,
			// Reconnects are this package's job (the next call dials
			// again), so a dead server fails the call promptly.
			MaxRetries: -1,
			// The standalone stream carries the server's own requests
			// (roots, sampling, elicitation): open it only when this
			// client answers some.
			DisableStandaloneSSE: !o.asks(),
		}, nil, nil
	}}
}

// Transport is a server reached over an existing SDK transport (for
// example one end of mcp.NewInMemoryTransports). A reconnect calls Connect
// on t again, which works only for transports that can connect more than
// once; an in-memory transport cannot, so after its server is gone calls
// keep failing with tool.CodeUnavailable.
func Transport(t mcp.Transport) Target {
	return Target{desc: fmt.Sprintf("%T", t), dial: func(context.Context, *options) (mcp.Transport, *exec.Cmd, error) {
		if t == nil {
			return nil, nil, errors.New("mcptool: Transport target is nil")
		}
		return t, nil, nil
	}}
}
