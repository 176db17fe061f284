// Command mcp-server serves the built-in file tools and a sandboxed bash
// tool over one workspace directory as an MCP server, on stdio (the
// default) or streamable HTTP, with the approval, policy and audit
// extensions on. A human approves risky calls through the MCP client
// (elicitation) when the client supports it; otherwise they are denied.
// Every call is written to a hash-chained audit trail before and after it
// runs.
//
//	go run ./examples/mcp-server -workspace ./sandbox-dir
//	go run ./examples/mcp-server -workspace ./sandbox-dir -http 127.0.0.1:8080
//	go run ./examples/mcp-server -workspace ./sandbox-dir -engine process   # no bubblewrap here
//
// Over HTTP every request must carry "Authorization: Bearer <token>": the
// token is $TOOLBELT_MCP_TOKEN, or one made for the run and printed on
// stderr. A client approves its own risky calls, so an endpoint without a
// token would let anyone who reaches the port run bash in the workspace.
//
// Logs go to stderr: on stdio, stdout carries the protocol.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/executor/mcpserver"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool/builtin"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server:", err)
		os.Exit(1)
	}
}

func run() error {
	workspace := flag.String("workspace", "", "directory the file tools may use (required)")
	addr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	governance := flag.String("governance", "", "policy file (YAML) with modes and per-tool rules; default: no file, normal mode")
	mode := flag.String("mode", "", "operating mode to start in (normal, alert, degraded, lockdown, recovery)")
	engine := flag.String("engine", sandbox.EngineBwrap, "sandbox engine for the bash tool: bwrap, gvisor, or process (isolates nothing but the process tree)")
	auditPath := flag.String("audit", "", "audit trail file (JSON lines, chained); verified and continued if it exists (default: one per workspace under $XDG_STATE_HOME/toolbelt, or ~/.local/state/toolbelt)")
	auditKey := flag.String("audit-key", "", "file holding the audit trail's HMAC key (64+ hex digits, or 32+ raw bytes): records are then chained with HMAC-SHA256, which an editor of the file cannot recompute")
	track := flag.Bool("track-changes", false, "tell the model (and the audit trail) which workspace files each bash command created, modified or deleted; costs two walks of the workspace per command")
	verbose := flag.Bool("v", false, "log the server's and the SDK's information lines on stderr (by default only warnings and errors)")
	flag.Parse()
	if *workspace == "" {
		return errors.New("-workspace is required: give the directory the tools may read and write")
	}
	// Quiet unless asked: an MCP client shows a stdio server's stderr to its
	// user, once per session.
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	// A full disk or exhausted memory switches normal or alert to degraded,
	// where the governance file's rules for degraded apply, until restarted.
	polOpts := []policy.Option{policy.WithMode(*mode), policy.WithDegradeOnExhaustion(func(from string, cause error) {
		log.Error("the host ran out of a resource: switched to the degraded mode", "from", from, "cause", cause)
	})}
	var pol *policy.Policy
	var err error
	if *governance != "" {
		if pol, err = policy.Load(*governance, polOpts...); err != nil {
			return err
		}
	} else {
		pol = policy.New(polOpts...)
	}
	if err := pol.Err(); err != nil {
		return err
	}

	// The workspace hides what the governance forbids, so list_directory
	// and search_files leave it out (and say so).
	ws, err := sandbox.OpenWorkspace(*workspace, sandbox.WithHide(pol.Hide))
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer ws.Close()

	sb, err := sandbox.New(*engine, sandbox.WithWorkspace(ws.Dir()))
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	var bashOpts []shell.Option
	if *track {
		bashOpts = append(bashOpts, shell.TrackChanges())
	}
	bash, err := shell.NewBash(sb, ws, bashOpts...)
	if err != nil {
		return err
	}
	reg := registry.New()
	if err := reg.Register(append(builtin.Files(ws), bash)...); err != nil {
		return err
	}
	if *auditPath == "" {
		if *auditPath, err = defaultAuditPath(ws.Dir()); err != nil {
			return err
		}
	}
	log.Info("audit trail", "path", *auditPath)
	auditOpts := []audit.Option{audit.WithErrorHandler(func(err error) {
		log.Error("audit trail", "err", err)
		if policy.Exhausted(err) {
			pol.Degrade(err)
		}
	})}
	if *auditKey != "" {
		auditOpts = append(auditOpts, audit.WithKeyFile(*auditKey))
	}
	trail, err := audit.Open(*auditPath, auditOpts...)
	if err != nil {
		return fmt.Errorf("audit trail: %w", err)
	}
	defer trail.Close()

	// Ask the human at the MCP client; with no way to ask, deny.
	approver := approval.FirstDecisive(mcpserver.Approver{},
		approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Denied("mcp-server", "this call needs a human's approval and the MCP client cannot ask one (no elicitation support)"), nil
		}))
	appr := approvalgate.New(approver)
	ex, err := executor.New(reg, executor.WithExtensions(trail, pol, appr, appr.Guard()))
	if err != nil {
		return err
	}

	srv, err := mcpserver.New(ex, mcpserver.WithImplementation("toolbelt-workspace", "v1"),
		mcpserver.WithInstructions("File tools and a sandboxed bash confined to one workspace directory. Paths are relative to it."),
		mcpserver.WithLogger(log))
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		return srv.ServeStdio(ctx)
	}
	// Over HTTP anyone who can reach the port is a client, and a client
	// approves its own risky calls (elicitation): every request must carry
	// the run's bearer token. In production put the token in
	// TOOLBELT_MCP_TOKEN (from a secret store), or replace requireToken with
	// auth.RequireBearerToken and your OAuth verifier (and
	// mcpserver.WithPrincipal(mcpserver.PrincipalFromToken())).
	token := os.Getenv(TokenEnv)
	if token == "" {
		if token, err = newToken(); err != nil {
			return err
		}
		// Printed once, for the person who started the server, never logged.
		fmt.Fprintf(os.Stderr, "mcp-server: clients must send \"Authorization: Bearer %s\" (set %s to choose the token)\n", token, TokenEnv)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(token)(srv.HTTPHandler(mcpserver.Stateful()))) // sessions: a client can cancel a running call
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "workspace", ws.Dir())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// TokenEnv names the environment variable holding the bearer token HTTP
// clients must send; without it the server makes one for the run and
// prints it on stderr.
const TokenEnv = "TOOLBELT_MCP_TOKEN"

// newToken returns 32 random bytes, base64url-encoded.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("bearer token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// requireToken refuses, with 401, a request whose Authorization header is
// not "Bearer " and token, compared in constant time.
func requireToken(token string) func(http.Handler) http.Handler {
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// One user: the SDK ties a stateful session to it.
		return &auth.TokenInfo{UserID: "mcp-client"}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
}

// defaultAuditPath is the trail of a workspace when -audit is not given: in
// the user's state directory, never in the directory the server was started
// from (which may be the workspace itself, where the tools could edit it).
func defaultAuditPath(workspace string) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no -audit path and no home directory for the default: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	dir = filepath.Join(dir, "toolbelt")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("audit trail directory: %w", err)
	}
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(dir, filepath.Base(workspace)+"-"+hex.EncodeToString(sum[:4])+".audit.jsonl"), nil
}
