package anthropic_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// wrappedDoer is a custom HTTP doer (an instrumented or retrying client):
// the SDK takes it as it is, and net/http's default policy inside it
// follows a redirect anywhere with x-api-key.
type wrappedDoer struct{ c *http.Client }

func (d wrappedDoer) Do(req *http.Request) (*http.Response, error) { return d.c.Do(req) }

// A user's HTTP client with a CheckRedirect of its own (one that counts or
// logs redirects, and lets them through) was used as it was: the guard
// stood aside, and a redirect to another origin took the key along. The
// guard's rule now comes first, then the user's policy, which still
// decides the redirects within the origin.
//
// A custom doer (option.WithHTTPClient of something that is not an
// *http.Client) follows redirects where the guard cannot see them: the
// key has gone by the time the answer comes back. The answer of another
// origin is refused, with an error saying so.
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
	for name, stream := range map[string]bool{"messages": false, "stream": true} {
		var opts []anthropic.Option
		if stream {
			opts = append(opts, anthropic.WithStream(func(string) {}))
		}
		client := sdk.NewClient(option.WithBaseURL(away.URL+"/"), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(&permissive), option.WithMaxRetries(0))
		_, err := anthropic.New(client, "claude-sonnet-4-5", opts...).Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "another origin", name)
		assert.Empty(t, other.requests(), "%s: the other origin received the key", name)
	}
	mu.Lock()
	assert.Zero(t, asked, "the user's policy is asked only about redirects within the origin")
	mu.Unlock()

	for name, stream := range map[string]bool{"messages": false, "stream": true} {
		var opts []anthropic.Option
		if stream {
			opts = append(opts, anthropic.WithStream(func(string) {}))
		}
		client := sdk.NewClient(option.WithBaseURL(away.URL+"/"), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(wrappedDoer{away.Client()}), option.WithMaxRetries(0))
		_, err := anthropic.New(client, "claude-sonnet-4-5", opts...).Next(context.Background(), conversation(), nil)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "another origin", name)
		assert.Contains(t, err.Error(), "doer", name)
	}
}
