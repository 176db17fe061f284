// Command fleet runs Toolbelt on several machines that share one PostgreSQL
// database: any number of MCP servers (stateless streamable HTTP) whose
// rate limits and approvals are exact across them, and a reviewer that
// lists and decides the approvals from anywhere.
//
//	export FLEET_SECRET=$(head -c 32 /dev/urandom | base64)   # the same on every server
//	fleet migrate  -db postgres://...                 create the tables
//	fleet serve    -db postgres://... -addr 127.0.0.1:8081
//	fleet serve    -db postgres://... -addr 127.0.0.1:8082
//	fleet token    -user alice                        print alice's bearer token
//	fleet pending  -db postgres://...                 list what waits
//	fleet decide   -db postgres://... -id apr-... -since T -approve (or -deny "why")
//
// Each server offers two tools: send_message, limited to 5 calls per hour
// per user over the whole fleet, and deploy, which waits for a person's
// decision wherever it is made. A caller proves its user with
// "Authorization: Bearer <token>", a token `fleet token` signs with
// FLEET_SECRET (HMAC-SHA256); a request without a valid one gets 401, so
// no client can spend another user's limit or file a deploy in their name.
// The tokens do not expire: rotate FLEET_SECRET to revoke them all, and in
// production use your identity provider's tokens instead (see
// verifyToken).
package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/executor/mcpserver"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/extension/ratelimit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// SecretEnv names the environment variable holding the secret that signs
// the users' tokens: the same on every server and wherever `fleet token`
// runs, 32 or more characters.
const SecretEnv = "FLEET_SECRET"

// fleetSecret reads SecretEnv.
func fleetSecret() ([]byte, error) {
	s := os.Getenv(SecretEnv)
	if len(s) < 32 {
		return nil, fmt.Errorf("%s holds %d characters: set it to a secret of 32 or more, the same on every server (e.g. head -c 32 /dev/urandom | base64); it signs the users' tokens", SecretEnv, len(s))
	}
	return []byte(s), nil
}

// userToken is the bearer token naming user: the user's name and an
// HMAC-SHA256 of it under secret, both base64url, joined by a dot.
func userToken(secret []byte, user string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("fleet user token\x00" + user))
	return base64.RawURLEncoding.EncodeToString([]byte(user)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// verifyToken accepts a token userToken made with secret, and names its
// user. Replace it with your identity provider's verifier (OAuth, OIDC) in
// production: these tokens never expire.
func verifyToken(secret []byte) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		name, _, ok := strings.Cut(token, ".")
		user, err := base64.RawURLEncoding.DecodeString(name)
		if !ok || err != nil || len(user) == 0 || !hmac.Equal([]byte(token), []byte(userToken(secret, string(user)))) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: string(user)}, nil
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, w io.Writer) error {
	if len(args) == 0 {
		return errors.New("give a command: migrate, serve, token, pending or decide")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "PostgreSQL connection string (default $DATABASE_URL)")
	addr := fs.String("addr", "127.0.0.1:8081", "serve: where the MCP endpoint listens (/mcp)")
	id := fs.String("id", "", "decide: the approval's id (see pending)")
	since := fs.String("since", "", "decide: the request's arrival, as pending printed it: the same call asked again later has the same id, and is not decided by a decision made seeing this one")
	approve := fs.Bool("approve", false, "decide: approve")
	deny := fs.String("deny", "", "decide: deny, telling the model why")
	who := fs.String("as", os.Getenv("USER"), "decide: who decides (recorded with the decision)")
	user := fs.String("user", "", "token: the user the token names")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if args[0] == "token" {
		if *user == "" {
			return errors.New("token needs -user: the user the token names")
		}
		secret, err := fleetSecret()
		if err != nil {
			return err
		}
		fmt.Fprintln(w, userToken(secret, *user))
		return nil
	}
	if *dsn == "" {
		return errors.New("-db is required (or set DATABASE_URL)")
	}
	pool, err := pgxpool.New(ctx, *dsn)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	defer pool.Close()
	switch args[0] {
	case "migrate":
		if err := postgres.Migrate(ctx, pool); err != nil {
			return err
		}
		fmt.Fprintln(w, "migrated")
		return nil
	case "serve":
		secret, err := fleetSecret()
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		return serve(ctx, pool, ln, secret, w)
	case "pending":
		return pending(ctx, pool, w)
	case "decide":
		if *id == "" || *since == "" || (*approve == (*deny != "")) {
			return errors.New("decide needs -id and -since, as pending printed them, and exactly one of -approve or -deny \"why\"")
		}
		arrived, err := time.Parse(time.RFC3339Nano, *since)
		if err != nil {
			return fmt.Errorf("-since %q is not the time pending printed (RFC 3339, such as 2026-11-27T22:40:05.123456Z): %w", *since, err)
		}
		d := approval.Approved(*who)
		if *deny != "" {
			d = approval.Denied(*who, *deny)
		}
		stores := postgres.New(pool)
		defer stores.Close()
		q := approval.NewQueue(approval.QueueStore(stores.Approvals))
		// ResolvePending decides the request that arrived at -since and no
		// other: an approval approves one run, so the same call asked again
		// waits under the same id, and a decision made seeing the first
		// request must not approve it.
		if err := q.ResolvePending(ctx, approval.Pending{ID: *id, Since: arrived}, d); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s by %s\n", *id, d.Kind, d.DecidedBy)
		return nil
	}
	return fmt.Errorf("unknown command %q: use migrate, serve, token, pending or decide", args[0])
}

// SendArgs are send_message's arguments.
type SendArgs struct {
	To   string `json:"to" jsonschema:"minLength=1"`
	Text string `json:"text"`
}

// DeployArgs are deploy's arguments.
type DeployArgs struct {
	Env string `json:"env" jsonschema:"enum=staging,enum=prod"`
}

// serve runs one MCP server of the fleet on ln until ctx ends.
func serve(ctx context.Context, pool *pgxpool.Pool, ln net.Listener, secret []byte, w io.Writer) error {
	stores := postgres.New(pool)
	defer stores.Close()
	reg := registry.New()
	reg.MustRegister(
		tool.Func("send_message", "Send a short message to a colleague", func(_ context.Context, in SendArgs) (string, error) {
			return "sent to " + in.To, nil
		}, tool.WithRisk(tool.RiskLow)),
		tool.Func("deploy", "Deploy the service to an environment", func(_ context.Context, in DeployArgs) (string, error) {
			return "deployed to " + in.Env, nil
		}, tool.WithRisk(tool.RiskHigh)),
	)
	limiter := ratelimit.New(ratelimit.WithStore(stores.RateLimits), ratelimit.PerToolPrincipal("5/hour"))
	queue := approval.NewQueue(approval.QueueStore(stores.Approvals), approval.QueueTimeout(30*time.Minute))
	gate := approvalgate.New(queue, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAuto)))
	ex, err := executor.New(reg, executor.WithExtensions(limiter, gate, gate.Guard()))
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(ex, mcpserver.WithImplementation("fleet", "1.0"),
		// The user is the one the verified token names, never a header a
		// client could set to anyone.
		mcpserver.WithPrincipal(mcpserver.PrincipalFromToken()))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	requireUser := auth.RequireBearerToken(verifyToken(secret), &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	mux.Handle("/mcp", requireUser(srv.HTTPHandler()))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(w, "serving http://%s/mcp\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shut)
	<-served
	return ctx.Err()
}

// pending prints what waits for a decision, one JSON object a line.
func pending(ctx context.Context, pool *pgxpool.Pool, w io.Writer) error {
	stores := postgres.New(pool)
	defer stores.Close()
	list, err := approval.NewQueue(approval.QueueStore(stores.Approvals)).PendingContext(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, p := range list {
		if err := enc.Encode(map[string]any{"id": p.ID, "tool": p.Request.Call.Name, "args": p.Request.Call.Args,
			"user": p.Request.Call.Principal.ID, "since": p.Since, "why": p.Request.Why}); err != nil {
			return err
		}
	}
	return nil
}
