package openai_test

import (
	"context"
	"io"
	"net/http"
	"os"
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

// recorder is a transport that answers every request with a turn (a chat
// completion or a response, by the path) and records the URLs it was
// sent: nothing leaves the machine.
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
	file := "testdata/turn2_answer.json"
	if strings.HasSuffix(req.URL.Path, "/responses") {
		file = "testdata/responses_turn2.json"
	}
	body, err := os.ReadFile(file)
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

// A base URL http:// to a host that is not this machine (a LAN model
// server, a typo of https, an Azure endpoint) sent the key and the
// conversation in clear text to anyone on the path. It is refused before
// anything is sent, with an error naming the option that allows it
// (openai.WithInsecureHTTP, openai.WithResponsesInsecureHTTP); http to
// this machine (Ollama, vLLM, llama.cpp on localhost) needs no option.
func TestAttackS19PlainHTTPToAnotherHostIsRefused(t *testing.T) {
	models := func(client sdk.Client, allow bool) map[string]agent.Model {
		var o []openai.Option
		var ro []openai.ResponsesOption
		if allow {
			o, ro = append(o, openai.WithInsecureHTTP()), append(ro, openai.WithResponsesInsecureHTTP())
		}
		return map[string]agent.Model{"chat": openai.New(client, "gpt-4.1", o...), "responses": openai.NewResponses(client, "gpt-4.1", ro...)}
	}
	clients := func(base string, rc *recorder) map[string]sdk.Client {
		hc := option.WithHTTPClient(&http.Client{Transport: rc})
		return map[string]sdk.Client{
			"base url": sdk.NewClient(option.WithBaseURL(base+"v1/"), option.WithAPIKey(hostileKey), hc, option.WithMaxRetries(0)),
			"azure": sdk.NewClient(azure.WithEndpoint(base, "2024-10-21"), azure.WithAPIKey(hostileKey), azure.WithUnsafeAllowHTTP(),
				hc, option.WithMaxRetries(0)),
		}
	}
	for _, base := range []string{"http://models.lan.test/", "HTTP://10.0.0.7:8080/", "http://[fe80::1]:80/", "http://localhost.evil.test/"} {
		rc := &recorder{}
		for kind, client := range clients(base, rc) {
			for api, m := range models(client, false) {
				_, err := m.Next(context.Background(), conversation(), nil)
				require.Error(t, err, "%s %s %s", base, kind, api)
				assert.ErrorIs(t, err, openai.ErrPlainHTTP, "%s %s %s", base, kind, api)
				assert.Contains(t, err.Error(), "openai.With", "%s %s %s", base, kind, api)
			}
			assert.Empty(t, rc.requests(), "%s %s", base, kind)
			for api, m := range models(client, true) {
				_, err := m.Next(context.Background(), conversation(), nil)
				if kind == "azure" {
					// The SDK's azure package refuses it itself.
					require.Error(t, err, "%s %s %s", base, kind, api)
					continue
				}
				require.NoError(t, err, "%s %s %s", base, kind, api)
			}
			if kind == "azure" {
				assert.Empty(t, rc.requests(), "%s %s", base, kind)
			} else {
				assert.Len(t, rc.requests(), 2, "%s %s", base, kind)
			}
			rc.sent = nil
		}
	}
	for _, base := range []string{"http://localhost:11434/", "http://127.0.0.1:8000/", "http://[::1]:8080/", "https://models.lan.test/"} {
		// (azure.WithUnsafeAllowHTTP dials a loopback endpoint itself, past
		// the recorder: only the base URL is tried here.)
		rc := &recorder{}
		for api, m := range models(clients(base, rc)["base url"], false) {
			_, err := m.Next(context.Background(), conversation(), nil)
			require.NoError(t, err, "%s %s", base, api)
		}
		assert.Len(t, rc.requests(), 2, base)
	}
}
