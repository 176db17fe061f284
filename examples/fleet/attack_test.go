package main

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres/pgtest"
)

// headerTransport names a user in a header, as the fleet once trusted.
type headerTransport struct{ user string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Toolbelt-User", h.user)
	return http.DefaultTransport.RoundTrip(r)
}

// TestAttackS30AnyClientNamesItselfAnyUser: a fleet server is an MCP
// endpoint whose rate limits and approvals are per user. A client that
// reaches it with no credential, naming itself "alice", must not be
// served: otherwise it spends alice's messages and files deploys a
// reviewer sees as alice's.
func TestAttackS30AnyClientNamesItselfAnyUser(t *testing.T) {
	pg, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrMissing) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer pg.Stop()
	ctx := context.Background()
	dsn, err := pg.CreateDatabase(ctx, "fleet_attack")
	require.NoError(t, err)

	bin := filepath.Join(t.TempDir(), "fleet")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	fleet(t, bin, "migrate", "-db", dsn)
	s := startServer(t, bin, dsn)

	for name, rt := range map[string]http.RoundTripper{
		"a header naming alice":              headerTransport{"alice"},
		"alice's token under another secret": bearerTransport{userToken([]byte("mallory's own secret, 32 bytes long"), "alice")},
		"mallory's token renamed to alice": bearerTransport{base64.RawURLEncoding.EncodeToString([]byte("alice")) + "." +
			strings.SplitN(userToken([]byte(testSecret), "mallory"), ".", 2)[1]},
	} {
		cs, err := dial(ctx, s.url, rt)
		if err == nil {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_message", Arguments: map[string]any{"to": "bob", "text": "as alice"}})
			require.NoError(t, err)
			assert.True(t, res.IsError, "%s: a client without alice's token sent a message as alice: %s", name, text(res))
			_ = cs.Close()
		}
		assert.Error(t, err, "%s: refused", name)
	}

	// A server without a secret does not start.
	cmd := exec.Command(bin, "serve", "-db", dsn, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), SecretEnv+"=")
	out, err := cmd.CombinedOutput()
	assert.Error(t, err)
	assert.Contains(t, string(out), SecretEnv)
}
