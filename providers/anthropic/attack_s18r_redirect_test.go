package anthropic_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// The redirect rule compared origins lower-cased with strings.ToLower,
// which folds some non-ASCII letters to ASCII ones (U+0130 to "i", U+212A
// to "k"), while net/http sends the request to the IDNA form of the host
// as written. A redirect from api.example.test to apİ.example.test was
// judged the same origin and followed with the key to
// xn--api-....example.test, a name anyone may register next to a real
// one (api.openaİ.com is not api.openai.com). The two hosts are routed
// here by the dialer: only the endpoint's name reaches the endpoint.
func TestAttackS18RRedirectToAFoldedHostIsAnotherOrigin(t *testing.T) {
	other := &sink{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://ap\u0130.example.test"+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()

	var mu sync.Mutex
	var dialed []string
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			to := strings.TrimPrefix(otherSrv.URL, "http://")
			if addr == "api.example.test:80" {
				to = strings.TrimPrefix(first.URL, "http://")
			}
			return d.DialContext(ctx, network, to)
		},
	}}
	defer client.CloseIdleConnections()
	for _, stream := range []bool{false, true} {
		// The dialer stands in for a network: plain http is allowed.
		mopts := []anthropic.Option{anthropic.WithInsecureHTTP()}
		if stream {
			mopts = append(mopts, anthropic.WithStream(func(string) {}))
		}
		c := sdk.NewClient(option.WithBaseURL("http://api.example.test/"), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(client), option.WithMaxRetries(0))
		_, err := anthropic.New(c, "claude-sonnet-4-5", mopts...).Next(context.Background(), conversation(), nil)
		require.Error(t, err)
		t.Log(err)
		assert.Contains(t, err.Error(), "another origin", "stream=%v", stream)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"api.example.test:80"}, dialed, "a request went to a host other than the endpoint's")
	assert.Empty(t, other.requests(), "the other host received the key")
}
