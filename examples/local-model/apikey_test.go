package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS30PasswordOfTheBaseURLInTheError: a server behind basic auth
// is reached with the password in -base-url; an error names the server,
// and must not print the password to a terminal or a log.
func TestAttackS30PasswordOfTheBaseURLInTheError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "model not loaded", http.StatusInternalServerError)
	}))
	defer srv.Close()
	const password = "S30-basic-auth-password"
	cfg := Config{BaseURL: strings.Replace(srv.URL, "http://", "http://bob:"+password+"@", 1) + "/v1/", Model: "m", Question: "q"}
	err := run(context.Background(), cfg, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "127.0.0.1", "the error names the server")
	assert.NotContains(t, err.Error(), password)
}

// TestAttackS30OpenAIKeyGoesToTheLocalServer: a developer's shell often
// holds OPENAI_API_KEY, their key for api.openai.com. The example talks to
// a server of the user's choosing (a LAN machine with -insecure-http, in
// clear text): it must not send that key there unless told to.
func TestAttackS30OpenAIKeyGoesToTheLocalServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "local-model")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"It is sunny."}}]}`))
	}))
	defer srv.Close()

	const key = "sk-proj-S30-real-openai-key"
	cmd := exec.Command(bin, "-base-url", srv.URL+"/v1/", "-model", "m")
	cmd.Env = append(cmd.Environ(), "OPENAI_API_KEY="+key, "OPENAI_BASE_URL=")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "It is sunny.")
	assert.NotContains(t, string(out), key)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	for _, h := range seen {
		assert.False(t, strings.Contains(h, key), "the OpenAI key was sent to the local server: %q", h)
	}
}
