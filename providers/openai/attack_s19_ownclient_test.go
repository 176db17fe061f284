package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/agent"
	"github.com/toolbelt-go/toolbelt/providers/openai"
)

// wrappedDoer is a custom HTTP doer (an instrumented or retrying client):
// the SDK takes it as it is, and net/http's default policy inside it
// follows a redirect to another port of the host with Authorization.
type wrappedDoer struct{ c *http.Client }

func (d wrappedDoer) Do(req *http.Request) (*http.Response, error) { return d.c.Do(req) }

// A user's HTTP client with a CheckRedirect of its own (one that counts or
// logs redirects, and lets them through) was used as it was: the guard
// stood aside, and a redirect to another origin took the key along. The
// guard's rule now comes first, then the user's policy. A custom doer
// follows redirects where the guard cannot see them: the answer of another
// origin is refused, with an error saying the key may have gone.
func TestAttackS19OwnClientOrDoerRedirectsElsewhere(t *testing.T) {
	other := &sink{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer away.Close()

	var mu sync.Mutex
	asked := 0
	permissive := *away.Client()
	permissive.CheckRedirect = func(*http.Request, []*http.Request) error {
		mu.Lock()
		asked++
		mu.Unlock()
		return nil
	}
	models := func(client sdk.Client) map[string]agent.Model {
		return map[string]agent.Model{
			"chat": openai.New(client, "gpt-4.1"), "responses": openai.NewResponses(client, "gpt-4.1"),
			"chat stream": openai.New(client, "gpt-4.1", openai.WithStream(func(string) {})),
		}
	}
	client := sdk.NewClient(option.WithBaseURL(away.URL+"/v1/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(&permissive), option.WithMaxRetries(0))
	for name, m := range models(client) {
		_, err := m.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "another origin", name)
		assert.Empty(t, other.requests(), "%s: the other origin received the key", name)
	}
	mu.Lock()
	assert.Zero(t, asked, "the user's policy is asked only about redirects within the origin")
	mu.Unlock()

	client = sdk.NewClient(option.WithBaseURL(away.URL+"/v1/"), option.WithAPIKey(hostileKey),
		option.WithHTTPClient(wrappedDoer{away.Client()}), option.WithMaxRetries(0))
	for name, m := range models(client) {
		_, err := m.Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "another origin", name)
		assert.Contains(t, err.Error(), "doer", name)
	}
}
