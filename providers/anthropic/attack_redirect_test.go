package anthropic_test

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

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// sink is a server of another origin that records what reached it.
type sink struct {
	mu   sync.Mutex
	seen []string
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, fmt.Sprintf("%s %s x-api-key=%q authorization=%q body=%d bytes",
		r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), len(body)))
	s.mu.Unlock()
	w.WriteHeader(http.StatusInternalServerError)
}

func (s *sink) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// An endpoint (a gateway, a proxy, an open redirect in front of the API)
// that answers with a redirect to another origin had net/http follow it
// with the key: net/http drops Authorization on a redirect to another
// host but keeps it for another port of the same host, and never drops
// x-api-key, which the SDK sends the key in; a 307 sends the
// conversation along too. A redirect is followed only within the
// endpoint's origin (scheme, host and port).
func TestAttackRedirectToAnotherOriginDoesNotCarryTheKey(t *testing.T) {
	auths := map[string]option.RequestOption{
		"x-api-key":     option.WithAPIKey(hostileKey),
		"authorization": option.WithAuthToken(hostileKey),
	}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		for _, stream := range []bool{false, true} {
			for authName, auth := range auths {
				for _, ownClient := range []bool{true, false} {
					name := fmt.Sprintf("%d/stream=%v/%s/own client=%v", status, stream, authName, ownClient)
					t.Run(name, func(t *testing.T) {
						other := &sink{}
						otherSrv := httptest.NewServer(other)
						defer otherSrv.Close()
						first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
							http.Redirect(w, r, otherSrv.URL+r.URL.Path, status)
						}))
						defer first.Close()
						opts := []option.RequestOption{option.WithBaseURL(first.URL + "/"), auth, option.WithMaxRetries(0)}
						if ownClient {
							opts = append(opts, option.WithHTTPClient(first.Client()))
						}
						var mopts []anthropic.Option
						if stream {
							mopts = append(mopts, anthropic.WithStream(func(string) {}))
						}
						_, err := anthropic.New(sdk.NewClient(opts...), "claude-sonnet-4-5", mopts...).Next(context.Background(), conversation(), nil)
						require.Error(t, err)
						t.Log(err)
						assert.Empty(t, other.requests(), "the other origin received a request")
						assert.Contains(t, err.Error(), "another origin")
						assert.Contains(t, err.Error(), first.URL)
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
	client := sdk.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	msg, err := anthropic.New(client, "claude-sonnet-4-5").Next(context.Background(), conversation(), nil)
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
	client = sdk.NewClient(option.WithBaseURL(away.URL+"/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(&own), option.WithMaxRetries(0))
	_, err = anthropic.New(client, "claude-sonnet-4-5").Next(context.Background(), conversation(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another origin")
	mu.Lock()
	defer mu.Unlock()
	// The guard's rule comes first (s19): the user's policy is asked
	// about redirects within the origin only.
	assert.Empty(t, asked, "the client's own CheckRedirect was asked about another origin")
	assert.Empty(t, other.requests())
}
