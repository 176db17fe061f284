package httptool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/audit"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// The secrets an author writes into a tool's config: an API key header, a
// bearer token written whole in Authorization, a session cookie, a key in
// Config.Query and one in the URL's fixed query. The model never sees the
// request, but endpoints echo it back.
const (
	cfgAPIKey   = "ak_live_7Hq2Zr9Lw3Xp"
	cfgBearer   = "sk-proj-Qm4Vt8Nc1Ry6"
	cfgSession  = "sess_Bx5Kd0Gj2Uw7"
	cfgQueryKey = "qk+live/Fz3Ys6Ae9Io" // '+' and '/' are percent-encoded in a URL
	cfgURLToken = "ut_Lp8Wn4Cv1Ht5"
)

var cfgSecrets = []string{cfgAPIKey, cfgBearer, cfgSession, cfgQueryKey, cfgURLToken}

func secretConfig(base, path string) httptool.Config {
	return httptool.Config{
		URL: base + path + "?access_token=" + cfgURLToken + "&format=full",
		Query: map[string]string{
			"api_key": cfgQueryKey,
			"q":       "{q}",
		},
		Headers: map[string]string{
			"X-Api-Key":     cfgAPIKey,
			"Authorization": "Bearer " + cfgBearer,
			"Cookie":        "session=" + cfgSession + "; theme=dark",
			"X-Client":      "toolbelt-agent-suite", // not a credential: shown
		},
	}
}

// echoServer answers like httpbin and like careless APIs: the request's
// headers, query and URL in JSON (/anything), the same as text (/text),
// in an error page and its reason phrase (/error), in the Content-Type
// (/ctype), after a redirect whose Location carries the query key
// (/redirect), with the key's characters JSON-escaped (/escaped), as a
// JSON number and an object key (/shapes).
func echoServer(t *testing.T) string {
	t.Helper()
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		echo := map[string]any{
			"headers": map[string]string{
				"X-Api-Key":     r.Header.Get("X-Api-Key"),
				"Authorization": r.Header.Get("Authorization"),
				"Cookie":        r.Header.Get("Cookie"),
				"X-Client":      r.Header.Get("X-Client"),
			},
			"args": r.URL.Query(),
			"url":  "http://" + r.Host + r.URL.RequestURI(),
		}
		switch r.URL.Path {
		case "/anything":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(echo)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "key=%s auth=%s cookie=%s url=%s raw-query-key=%s client=%s",
				r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), r.Header.Get("Cookie"),
				r.URL.RequestURI(), r.URL.Query().Get("api_key"), r.Header.Get("X-Client"))
		case "/error":
			// The status line's reason phrase echoes the bearer token:
			// net/http writes only standard ones, so write the response raw.
			conn, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return // the tool then fails with "unavailable", and the test with it
			}
			defer conn.Close()
			body := "<p>invalid key " + r.Header.Get("X-Api-Key") + " for " + r.Header.Get("Cookie") + " at " + r.URL.RequestURI() + "</p>"
			_, _ = fmt.Fprintf(bw, "HTTP/1.1 401 Bad %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
				r.Header.Get("Authorization"), len(body), body)
			_ = bw.Flush()
		case "/ctype":
			w.Header().Set("Content-Type", "text/plain; key="+r.Header.Get("X-Api-Key"))
			_, _ = io.WriteString(w, "ok")
		case "/redirect":
			http.Redirect(w, r, "/anything?api_key="+url.QueryEscape(r.URL.Query().Get("api_key"))+"&from=redirect", http.StatusFound)
		case "/escaped":
			w.Header().Set("Content-Type", "application/json")
			var esc strings.Builder
			for _, c := range r.Header.Get("X-Api-Key") {
				fmt.Fprintf(&esc, `\u%04x`, c)
			}
			fmt.Fprintf(w, `{"you_sent":"%s","client":%q}`, esc.String(), r.Header.Get("X-Client"))
		case "/shapes":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"keys":{%q:true},"list":[%q,{"deep":%q}],"client":%q}`,
				r.Header.Get("X-Api-Key"), r.URL.Query().Get("access_token"), "Bearer "+cfgBearer, r.Header.Get("X-Client"))
		}
	})
	return srv.URL
}

// A secret the author configured (not the model's, not Config.Auth's)
// came back to the model whole in the result's output, text, error,
// metadata and streamed events, wherever the server echoed it.
func TestAttackConfiguredSecretsEchoedToTheModel(t *testing.T) {
	base := echoServer(t)
	for _, path := range []string{"/anything", "/text", "/error", "/ctype", "/redirect", "/escaped", "/shapes"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			tl := newTool(t, tool.Spec{InputSchema: schema(`"q":{"type":"string"}`)}, secretConfig(base, path))
			var mu sync.Mutex
			var streamed strings.Builder
			ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { mu.Lock(); streamed.Write(ev.Data); mu.Unlock() })
			res, err := tl.Run(ctx, tool.Call{Name: "api", Args: json.RawMessage(`{"q":"weather"}`)})
			dump, _ := json.Marshal(res)
			errText := fmt.Sprint(err)
			mu.Lock()
			shown := map[string]string{"result": string(dump), "streamed": streamed.String(), "error": errText}
			mu.Unlock()
			var terr *tool.Error
			if err != nil {
				require.ErrorAs(t, err, &terr)
				if terr.Err != nil {
					shown["error cause"] = terr.Err.Error()
				}
			}
			for what, s := range shown {
				for _, sec := range cfgSecrets {
					assert.NotContains(t, s, sec, "%s shows a configured secret", what)
					assert.NotContains(t, s, url.QueryEscape(sec), "%s shows a configured secret percent-encoded", what)
				}
			}
			if path == "/error" {
				require.NotNil(t, terr)
				assert.Equal(t, tool.CodeUnauthorized, terr.Code)
				assert.Contains(t, terr.Message, "invalid key "+httptool.Redacted, "the error still says what went wrong")
				return
			}
			require.NoError(t, err)
			switch path {
			case "/text":
				assert.Contains(t, res.Text(), "client=toolbelt-agent-suite", "a header that is not a credential is shown")
				assert.Contains(t, res.Text(), "key="+httptool.Redacted+" ")
				return
			case "/ctype":
				assert.Equal(t, "text/plain; key="+httptool.Redacted, res.Metadata["content_type"])
				return
			}
			require.NotEmpty(t, res.Output, "a JSON object body stays structured output")
			assert.True(t, json.Valid(res.Output), "masked output is still JSON: %s", res.Output)
			assert.Contains(t, string(res.Output), "toolbelt-agent-suite", "a header that is not a credential is shown")
			assert.Contains(t, string(res.Output), httptool.Redacted)
		})
	}
}

// The model is not the only reader: the executor validates the output
// against the tool's output schema and the audit trail records the
// result. The masked output still validates, and the trail never holds
// the configured secrets: its own rule masks values under secret names
// ("X-Api-Key": ...), not the same key in an error page's prose.
func TestConfiguredSecretsMaskedBeforeTheAuditTrail(t *testing.T) {
	base := echoServer(t)
	for _, path := range []string{"/anything", "/error"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			spec := tool.Spec{
				Name:        "echo",
				Description: "Echo the request, as httpbin's /anything does",
				InputSchema: schema(`"q":{"type":"string"}`),
				OutputSchema: json.RawMessage(`{"type":"object","required":["headers","url"],"properties":{
					"headers":{"type":"object","additionalProperties":{"type":"string"}},
					"args":{"type":"object"},"url":{"type":"string"}}}`),
			}
			tl := newTool(t, spec, secretConfig(base, path))
			reg := registry.New()
			require.NoError(t, reg.Register(tl))
			var sink syncBuffer
			trail, err := audit.New(&sink, audit.WithResults(1<<20))
			require.NoError(t, err)
			defer trail.Close()
			ex, err := executor.New(reg, executor.WithExtensions(trail))
			require.NoError(t, err)
			// A failed call returns its error too; the result holds it.
			res, _ := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "echo", Args: json.RawMessage(`{"q":"weather"}`)})
			require.NotNil(t, res)
			trailText := sink.String()
			require.Contains(t, trailText, `"echo"`, "the trail recorded the call")
			dump, _ := json.Marshal(res)
			for _, sec := range cfgSecrets {
				assert.NotContains(t, string(dump), sec, "the executor's result holds a configured secret")
				assert.NotContains(t, trailText, sec, "the audit trail holds a configured secret")
				assert.NotContains(t, trailText, url.QueryEscape(sec), "the audit trail holds a configured secret percent-encoded")
			}
			if path == "/error" {
				assert.Equal(t, tool.CodeUnauthorized, res.Error.Code)
				return
			}
			require.True(t, res.OK(), "the masked output validates against the output schema: %v", res.Error)
			var out struct{ Headers map[string]string }
			require.NoError(t, json.Unmarshal(res.Output, &out))
			assert.Equal(t, httptool.Redacted, out.Headers["X-Api-Key"])
			assert.Equal(t, "toolbelt-agent-suite", out.Headers["X-Client"])
		})
	}
}

// syncBuffer is an audit.Writer in memory.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Sync() error { return nil }

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The body is streamed as it arrives: a secret's encoded form (here
// percent-encoded, as an echoed URL carries it) split between two reads
// was masked in neither chunk, though the result, masked whole, hid it.
// The server sends the second half only once the first chunk was streamed,
// so the split is certain.
func TestAttackEncodedSecretSplitAcrossStreamedChunks(t *testing.T) {
	encoded := url.QueryEscape(cfgQueryKey)
	half := len(encoded) / 2
	u, onChunk := splitEcho(t, strings.Repeat("p", 4096)+" url=/x?api_key="+encoded[:half], encoded[half:]+"&from=echo")
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: u + "/", Query: map[string]string{"api_key": cfgQueryKey}})
	run := runStreamed(t, tl, onChunk)
	require.NoError(t, run.err)
	require.GreaterOrEqual(t, run.chunks, 2, "the body was streamed in more than one chunk")
	assert.NotContains(t, run.res.Text(), encoded)
	assert.NotContains(t, run.streamed, encoded, "the stream shows the secret percent-encoded")
	assert.Equal(t, run.res.Text(), run.streamed, "the stream says what the result says")
	assert.True(t, strings.HasSuffix(run.streamed, "api_key="+httptool.Redacted+"&from=echo"), "%q", run.streamed[max(0, len(run.streamed)-60):])
}

// What is not a credential, or too short to mask without garbling the
// response, is left as it is: a header whose name says nothing of a
// secret, a value an argument fills in (the model's own), a cookie value
// of four bytes, and the scheme word of an Authorization header.
func TestOrdinaryConfigValuesAreNotMasked(t *testing.T) {
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "tenant=%s user-token=%s mode=dark scheme=Bearer version=2024-06-01",
			r.Header.Get("X-Tenant"), r.Header.Get("X-User-Token"))
	})
	tl := newTool(t, tool.Spec{InputSchema: schema(`"token":{"type":"string"}`)}, httptool.Config{
		URL: srv.URL + "/",
		Headers: map[string]string{
			"X-Tenant":      "acme-corporation",
			"X-Api-Version": "2024-06-01",
			"X-User-Token":  "{token}",
			"Cookie":        "theme=dark",
			"Authorization": "Bearer {token}",
		},
	})
	res, err := run(t, tl, `{"token":"model-supplied-token"}`)
	require.Nil(t, err)
	assert.Equal(t, "tenant=acme-corporation user-token=model-supplied-token mode=dark scheme=Bearer version=2024-06-01", res.Text())
}
