package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/providers/anthropic"
)

// recorder is a transport that answers every request with a turn and
// records the URLs and keys it was sent: nothing leaves the machine.
type recorder struct {
	mu   sync.Mutex
	sent []string
}

func (rc *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rc.mu.Lock()
	rc.sent = append(rc.sent, req.URL.String()+" key="+req.Header.Get("X-Api-Key"))
	rc.mu.Unlock()
	if req.Body != nil {
		_ = req.Body.Close()
	}
	body, err := os.ReadFile("testdata/turn2_answer.json")
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(body))), Request: req}, nil
}

func (rc *recorder) requests() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.sent...)
}

// A base URL http:// to a host that is not this machine (a LAN server, a
// typo of https) sent the API key and the conversation in clear text to
// anyone on the path. It is refused before anything is sent, with an
// error naming anthropic.WithInsecureHTTP, which allows it; http to this
// machine (a local model server) is allowed without it.
func TestAttackS19PlainHTTPToAnotherHostIsRefused(t *testing.T) {
	for _, base := range []string{"http://models.lan.test/", "HTTP://10.0.0.7:8080/", "http://[fe80::1]:80/", "http://localhost.evil.test/"} {
		rc := &recorder{}
		client := sdk.NewClient(option.WithBaseURL(base), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(&http.Client{Transport: rc}), option.WithMaxRetries(0))
		for name, opts := range map[string][]anthropic.Option{"messages": nil, "stream": {anthropic.WithStream(func(string) {})}} {
			_, err := anthropic.New(client, "claude-sonnet-4-5", opts...).Next(context.Background(), conversation(), nil)
			require.Error(t, err, "%s %s", base, name)
			assert.ErrorIs(t, err, anthropic.ErrPlainHTTP, "%s %s", base, name)
			assert.Contains(t, err.Error(), "anthropic.WithInsecureHTTP", "%s %s", base, name)
		}
		assert.Empty(t, rc.requests(), base)

		msg, err := anthropic.New(client, "claude-sonnet-4-5", anthropic.WithInsecureHTTP()).Next(context.Background(), conversation(), nil)
		require.NoError(t, err, base)
		assert.NotEmpty(t, msg.Text)
		assert.Len(t, rc.requests(), 1, base)
	}
	for _, base := range []string{"http://localhost:11434/", "http://127.0.0.1:8000/", "http://[::1]:8080/", "https://models.lan.test/"} {
		rc := &recorder{}
		client := sdk.NewClient(option.WithBaseURL(base), option.WithAPIKey(hostileKey),
			option.WithHTTPClient(&http.Client{Transport: rc}), option.WithMaxRetries(0))
		_, err := anthropic.New(client, "claude-sonnet-4-5").Next(context.Background(), conversation(), nil)
		require.NoError(t, err, base)
		assert.Len(t, rc.requests(), 1, base)
	}
}
