package httptool_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
)

// Control characters other than CR, LF and NUL are refused by net/http
// only when the request is written, which came back as a retryable
// "unavailable" transport failure: it is the model's argument that is
// wrong, and retrying it cannot help.
func TestHeaderControlCharactersAreInvalidArguments(t *testing.T) {
	srv, _ := recorder(t, nil)
	tl := newTool(t, tool.Spec{InputSchema: schema(`"trace":{"type":"string"}`)},
		httptool.Config{URL: srv.URL + "/", Headers: map[string]string{"X-Trace": "{trace}"}})
	for _, v := range []string{"a\x01b", "a\x1bb", "a\x7fb", "a\x0bb", "a\x0cb"} {
		args, _ := json.Marshal(map[string]string{"trace": v})
		_, err := run(t, tl, string(args))
		require.NotNil(t, err, "%q", v)
		assert.Equal(t, tool.CodeInvalidArguments, err.Code, "%q: %s", v, err.Message)
		assert.False(t, err.Retryable)
	}
	_, err := run(t, tl, `{"trace":"a\tb"}`)
	assert.Nil(t, err, "a tab is allowed in a header value")
}

// rawServer answers every connection with the bytes of head, then closes.
func rawServer(t *testing.T, head string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for { // the request's head
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = c.Write([]byte(head))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// A hostile server's headers are part of what it answers: a 4 MiB
// Content-Type or reason phrase must not reach the result (metadata, error
// message) when the body itself is capped at 1 MiB.
func TestHugeResponseHeadersAreBounded(t *testing.T) {
	huge := strings.Repeat("x", 4<<20)
	for _, tc := range []struct{ name, head string }{
		{"content type", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; p=" + huge + "\r\nContent-Length: 2\r\n\r\nok"},
		{"reason phrase", "HTTP/1.1 500 " + huge + "\r\nContent-Length: 2\r\n\r\nno"},
		{"long content type within the header limit", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; p=" + huge[:40<<10] + "\r\nContent-Length: 2\r\n\r\nok"},
		{"long reason phrase within the header limit", "HTTP/1.1 500 " + huge[:40<<10] + "\r\nContent-Length: 2\r\n\r\nno"},
		{"many headers", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: "+strings.Repeat("y", 1000)+"\r\n", 4000) + "Content-Length: 2\r\n\r\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := rawServer(t, tc.head)
			tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: u + "/"})
			res, err := run(t, tl, `{}`)
			if err != nil {
				assert.Less(t, len(err.Message), 4096, "error message")
			}
			if res != nil {
				b, _ := json.Marshal(res)
				assert.Less(t, len(b), 8192, "result")
			}
		})
	}
}

// The reason phrase is redacted before it is cut: a secret that straddles
// the cut leaves no prefix behind.
func TestReasonPhraseCutAfterRedaction(t *testing.T) {
	const secret = "s3cr3t-key-0123456789"
	u := rawServer(t, "HTTP/1.1 500 "+strings.Repeat("x", 250)+secret+"\r\nContent-Length: 0\r\n\r\n")
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: u + "/", Auth: &httptool.Auth{Provider: "k"}},
		httptool.WithCredential("k", func(context.Context) (string, error) { return secret, nil }))
	_, err := run(t, tl, `{}`)
	require.NotNil(t, err)
	assert.NotContains(t, err.Message, "s3cr3t")
}

// A gzip bomb (8 MiB of zeros in about 8 KiB) is capped after
// decompression, on the success path and on the error path.
func TestGzipBombIsCapped(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zero := make([]byte, 1<<20)
	for range 8 {
		_, _ = zw.Write(zero)
	}
	require.NoError(t, zw.Close())
	srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = w.Write(gz.Bytes())
	})
	tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/ok"}, httptool.WithMaxResponseBytes(64<<10))
	res, err := run(t, tl, `{}`)
	require.Nil(t, err)
	assert.Equal(t, true, res.Metadata["truncated"])
	assert.Less(t, len(res.Text()), 65<<10)

	tl = newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/fail"})
	_, err = run(t, tl, `{}`)
	require.NotNil(t, err)
	assert.Less(t, len(err.Message), 1024)
}

// net/http sends the URL a redirect came from as Referer, with its path
// and query: arguments the model filled in, and fixed query parameters a
// tool file may carry. Another origin does not get it.
func TestRedirectSendsNoReferer(t *testing.T) {
	other, last := recorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("landed")) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	}))
	defer srv.Close()
	tl := newTool(t, tool.Spec{InputSchema: schema(`"id":{"type":"string"}`, "id")},
		httptool.Config{URL: srv.URL + "/users/{id}?api_key=k3y"})
	res, err := run(t, tl, `{"id":"alice"}`)
	require.Nil(t, err)
	assert.Equal(t, "landed", res.Text())
	assert.Empty(t, last().Header.Get("Referer"))
}

// A body cut at the size cap (or at the error excerpt's 512 bytes) in the
// middle of an echoed credential: the redactor held back the credential's
// first bytes to see whether the rest followed, and released them when the
// body was cut, so the result, the streamed output and the error message
// carried a prefix of the credential.
func TestAttackCredentialCutByTheBodyCapIsNotShown(t *testing.T) {
	const secret = "tok_9f8e7d6c5b4a3f2e1d0c"
	for _, tc := range []struct {
		name   string
		status int
		limit  int64
		pad    int
	}{
		{"truncated body", 200, 1000, 1000 - 12},
		{"truncated body, one byte in", 200, 1000, 1000 - 1},
		{"error excerpt", 500, 0, 512 - 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := recorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, strings.Repeat("a", tc.pad)+r.Header.Get("X-Key")+strings.Repeat("b", 2000))
			})
			opts := []httptool.Option{httptool.WithCredential("k", func(context.Context) (string, error) { return secret, nil })}
			if tc.limit > 0 {
				opts = append(opts, httptool.WithMaxResponseBytes(tc.limit))
			}
			tl := newTool(t, tool.Spec{InputSchema: schema("")}, httptool.Config{URL: srv.URL + "/", Auth: &httptool.Auth{Header: "X-Key", Provider: "k"}}, opts...)
			var mu sync.Mutex
			var streamed string
			ctx := tool.WithEmitter(context.Background(), func(ev tool.Event) { mu.Lock(); streamed += string(ev.Data); mu.Unlock() })
			res, err := tl.Run(ctx, tool.Call{Name: "api", Args: json.RawMessage(`{}`)})
			dump, _ := json.Marshal(res)
			mu.Lock()
			defer mu.Unlock()
			for what, s := range map[string]string{"result": string(dump), "streamed": streamed, "error": fmt.Sprint(err)} {
				assert.NotContains(t, s, "aaa"+secret[:1], "%s shows the credential's first bytes", what)
			}
		})
	}
}

// A redirect that leaves the tool's origin drops the credential; one that
// then comes back (the API redirects to another host, which redirects to
// any path of the API, keeping the method with 307) had it put back:
// net/http copies the first request's headers at every hop, and the check
// compared each hop with the first request only. The other host chose
// where on the API the call's credential went, outside the tool's URL
// template. (A request with a body no longer leaves the origin by 307 at
// all: TestAttackCrossOriginRedirectDoesNotResendTheBody.)
func TestAttackRedirectBackToTheOriginDoesNotRestoreTheCredential(t *testing.T) {
	var apiURL string
	bounce := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, apiURL+"/admin/delete-everything", http.StatusTemporaryRedirect)
	}))
	defer bounce.Close()
	var mu sync.Mutex
	got := map[string]http.Header{}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Method+" "+r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		if r.URL.Path == "/start" {
			http.Redirect(w, r, bounce.URL+"/", http.StatusTemporaryRedirect) // another port: another origin
			return
		}
		_, _ = io.WriteString(w, "done")
	}))
	defer api.Close()
	apiURL = api.URL
	cred := httptool.WithCredential("k", func(context.Context) (string, error) { return "s3cr3t-key", nil })
	for _, auth := range []*httptool.Auth{{Header: "X-Api-Key", Provider: "k"}, {Scheme: "Bearer", Provider: "k"}} {
		t.Run(auth.Header+auth.Scheme, func(t *testing.T) {
			tl := newTool(t, tool.Spec{Name: "r", InputSchema: schema(`"q":{"type":"string"}`)},
				httptool.Config{Method: "DELETE", URL: api.URL + "/start", Query: map[string]string{"q": "{q}"}, Auth: auth}, cred)
			_, err := run(t, tl, `{"q":"x"}`)
			require.Nil(t, err)
			mu.Lock()
			defer mu.Unlock()
			require.Contains(t, got, "DELETE /start")
			assert.NotEmpty(t, got["DELETE /start"].Get("X-Api-Key")+got["DELETE /start"].Get("Authorization"), "the first request carries the credential")
			h, ok := got["DELETE /admin/delete-everything"]
			require.True(t, ok, "the redirect chain reached the API again")
			assert.Empty(t, h.Get("X-Api-Key"), "custom credential header restored after leaving the origin")
			assert.Empty(t, h.Get("Authorization"), "Authorization restored after leaving the origin")
		})
	}
}
