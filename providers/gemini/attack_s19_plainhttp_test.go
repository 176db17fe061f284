package gemini_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/toolbelt-go/toolbelt/providers/gemini"
)

// recorder is a transport that answers every request with a turn and
// records the URLs it was sent: nothing leaves the machine.
type recorder struct {
	mu   sync.Mutex
	sent []string
}

func (rc *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	rc.mu.Lock()
	rc.sent = append(rc.sent, req.URL.String())
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

// A base URL http:// to a host that is not this machine (the client's, or
// a request config's) sent the x-goog-api-key header and the conversation
// in clear text to anyone on the path. It is refused before anything is
// sent, with an error naming gemini.WithInsecureHTTP, which allows it;
// http to this machine is allowed without it.
func TestAttackS19PlainHTTPToAnotherHostIsRefused(t *testing.T) {
	newModel := func(t *testing.T, clientBase, requestBase string, rc *recorder, opts ...gemini.Option) *gemini.Model {
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
			APIKey: hostileKey, Backend: genai.BackendGeminiAPI, HTTPClient: &http.Client{Transport: rc},
			HTTPOptions: genai.HTTPOptions{BaseURL: clientBase},
		})
		require.NoError(t, err)
		if requestBase != "" {
			opts = append(opts, gemini.WithConfig(func(c *genai.GenerateContentConfig) {
				c.HTTPOptions = &genai.HTTPOptions{BaseURL: requestBase}
			}))
		}
		return gemini.New(client, "gemini-2.5-flash", opts...)
	}
	for _, base := range []string{"http://models.lan.test/", "HTTP://10.0.0.7:8080/", "http://[fe80::1]:80/", "http://localhost.evil.test/"} {
		for where, bases := range map[string][2]string{"client": {base, ""}, "request": {"https://generativelanguage.googleapis.com/", base}} {
			rc := &recorder{}
			for name, opts := range map[string][]gemini.Option{"generate": nil, "stream": {gemini.WithStream(func(string) {})}} {
				_, err := newModel(t, bases[0], bases[1], rc, opts...).Next(context.Background(), conversation(), nil)
				require.Error(t, err, "%s %s %s", base, where, name)
				assert.ErrorIs(t, err, gemini.ErrPlainHTTP, "%s %s %s", base, where, name)
				assert.Contains(t, err.Error(), "gemini.WithInsecureHTTP", "%s %s %s", base, where, name)
			}
			assert.Empty(t, rc.requests(), "%s %s", base, where)
			_, err := newModel(t, bases[0], bases[1], rc, gemini.WithInsecureHTTP()).Next(context.Background(), conversation(), nil)
			require.NoError(t, err, "%s %s", base, where)
			assert.Len(t, rc.requests(), 1, "%s %s", base, where)
		}
	}
	for _, base := range []string{"http://localhost:8080/", "http://127.0.0.1:8000/", "http://[::1]:8080/", "https://models.lan.test/"} {
		rc := &recorder{}
		_, err := newModel(t, base, "", rc).Next(context.Background(), conversation(), nil)
		require.NoError(t, err, base)
		assert.Len(t, rc.requests(), 1, base)
	}
}
