package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// sink is a server of another origin that records what reached it.
type sink struct {
	mu   sync.Mutex
	seen []string
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, fmt.Sprintf("%s %s api-key=%q authorization=%q body=%d bytes",
		r.Method, r.URL.Path, r.Header.Get("Api-Key"), r.Header.Get("Authorization"), len(body)))
	s.mu.Unlock()
	w.WriteHeader(http.StatusInternalServerError)
}

func (s *sink) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// An endpoint (a compatible server, a gateway, an open redirect in front of
// the API) that answers with a redirect to another origin must not have
// the key follow it: net/http keeps Authorization for another port of the
// same host and never drops Azure's Api-Key, and a 307 sends the
// conversation along too. Plain OpenAI (Authorization) and Azure OpenAI
// (Api-Key, over TLS, and over loopback HTTP with azure.WithUnsafeAllowHTTP),
// Chat Completions and Responses, streamed or not, 302 and 307.
func TestAttackRedirectToAnotherOriginDoesNotCarryTheKey(t *testing.T) {
	type setup struct {
		tls  bool
		opts func(base string) []option.RequestOption
	}
	setups := map[string]setup{
		"openai": {opts: func(base string) []option.RequestOption {
			return []option.RequestOption{option.WithBaseURL(base + "/v1/"), option.WithAPIKey(hostileKey)}
		}},
		"azure": {tls: true, opts: func(base string) []option.RequestOption {
			return []option.RequestOption{azure.WithEndpoint(base, "2024-10-21"), azure.WithAPIKey(hostileKey)}
		}},
		"azure-loopback-http": {opts: func(base string) []option.RequestOption {
			return []option.RequestOption{azure.WithEndpoint(base, "2024-10-21"), azure.WithAPIKey(hostileKey), azure.WithUnsafeAllowHTTP()}
		}},
	}
	for setupName, s := range setups {
		for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
			for _, api := range []string{"chat", "responses"} {
				for _, stream := range []bool{false, true} {
					name := fmt.Sprintf("%s/%d/%s/stream=%v", setupName, status, api, stream)
					t.Run(name, func(t *testing.T) {
						newServer := httptest.NewServer
						if s.tls {
							newServer = httptest.NewTLSServer
						}
						other := &sink{}
						otherSrv := newServer(other)
						defer otherSrv.Close()
						first := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
							http.Redirect(w, r, otherSrv.URL+r.URL.RequestURI(), status)
						}))
						defer first.Close()
						client := sdk.NewClient(append(s.opts(first.URL), option.WithHTTPClient(first.Client()), option.WithMaxRetries(0))...)
						var model agent.Model
						switch {
						case api == "chat" && stream:
							model = openai.New(client, "gpt-4.1", openai.WithStream(func(string) {}))
						case api == "chat":
							model = openai.New(client, "gpt-4.1")
						case stream:
							model = openai.NewResponses(client, "gpt-5", openai.WithResponsesStream(func(string) {}))
						default:
							model = openai.NewResponses(client, "gpt-5")
						}
						_, err := model.Next(context.Background(), conversation(), nil)
						require.Error(t, err)
						assert.Empty(t, other.requests(), "the other origin received a request")
						assert.Contains(t, err.Error(), "another origin")
						assert.Contains(t, err.Error(), otherSrv.URL)
						assert.NotContains(t, err.Error(), hostileKey)
					})
				}
			}
		}
	}
}

// A redirect within the endpoint's origin is still followed, and a client
// with a redirect policy of its own keeps it.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "turn2_answer.json"))
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/moved/") {
			http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	msg, err := openai.New(client, "gpt-4.1").Next(context.Background(), conversation(), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, msg.Text)

	other := &sink{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer away.Close()
	var mu sync.Mutex
	var asked []string
	own := *away.Client()
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		mu.Lock()
		asked = append(asked, req.URL.String())
		mu.Unlock()
		return http.ErrUseLastResponse
	}
	client = sdk.NewClient(option.WithBaseURL(away.URL+"/v1/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(&own), option.WithMaxRetries(0))
	_, err = openai.New(client, "gpt-4.1").Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another origin")
	mu.Lock()
	defer mu.Unlock()
	// The guard's rule comes first (s19): the user's policy is asked
	// about redirects within the origin only.
	assert.Empty(t, asked, "the client's own CheckRedirect was asked about another origin")
	assert.Empty(t, other.requests())
}
